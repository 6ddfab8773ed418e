import UnderstudyImages
import XCTest

/// Skips a test about formats this build cannot encode (Linux without the `SystemCodecs`
/// trait, where PNG alone is encoded), saying which. What such a build does instead (the clear
/// error, at load time and as a 500) is what `PortableCodecTests` check.
public func requireEncoding(_ kinds: ImageKind..., file: StaticString = #filePath, line: UInt = #line) throws {
    let missing = kinds.filter { !$0.canEncode }
    guard missing.isEmpty else {
        let names = missing.map(\.mimeType).joined(separator: ", ")
        throw XCTSkip("this build's codecs cannot encode \(names) (no SystemCodecs trait); PortableCodecTests check the error it gives instead", file: file, line: line)
    }
}

/// Skips a test that decodes formats this build cannot decode, saying which.
public func requireDecoding(_ kinds: ImageKind..., file: StaticString = #filePath, line: UInt = #line) throws {
    let missing = kinds.filter { !$0.canDecode }
    guard missing.isEmpty else {
        let names = missing.map(\.mimeType).joined(separator: ", ")
        throw XCTSkip("this build's codecs cannot decode \(names) (no SystemCodecs trait)", file: file, line: line)
    }
}

/// How this build's codec errors name its platform, written out for each platform a test can
/// run on (the library says "macOS (ImageIO)" on a Mac, "Linux without the SystemCodecs trait"
/// in the portable build), so that a test of an error's text expects the platform it runs on.
public var expectedCodecPlatform: String {
    #if os(Linux)
    ImageKind.webp.canEncode ? "Linux with the SystemCodecs trait" : "Linux without the SystemCodecs trait"
    #elseif os(macOS)
    "macOS (ImageIO)"
    #elseif os(iOS)
    "iOS (ImageIO)"
    #elseif os(tvOS)
    "tvOS (ImageIO)"
    #elseif os(watchOS)
    "watchOS (ImageIO)"
    #else
    "this Apple platform (ImageIO)"
    #endif
}

/// What a codec error says this build encodes: "encode PNG only" in Linux's portable build,
/// "encode PNG, JPEG, GIF and HEIC only" on an iPhone (what ImageIO writes there).
public var expectedEncodableFormats: String {
    let names = ImageFormat.encodableKinds.map { kind in
        switch kind {
        case .png: "PNG"
        case .webp: "WebP"
        case .jpeg: "JPEG"
        case .gif: "GIF"
        case .avif: "AVIF"
        case .heic: "HEIC"
        }
    }
    let list = names.count <= 1 ? names.joined() : names.dropLast().joined(separator: ", ") + " and " + names.last!
    return names.isEmpty ? "encode no format" : "encode \(list) only"
}
