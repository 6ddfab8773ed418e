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
