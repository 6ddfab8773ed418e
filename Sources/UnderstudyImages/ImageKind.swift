import Foundation

/// The format of some image bytes, recognised by their signature (magic number).
///
/// ```swift
/// ImageKind.detect(data)?.mimeType   // "image/webp"
/// ```
public enum ImageKind: String, Sendable, Hashable, CaseIterable {
    /// PNG: `89 50 4E 47 0D 0A 1A 0A`.
    case png
    /// WebP: `RIFF`, a 4-byte size, `WEBP`.
    case webp
    /// JPEG: `FF D8 FF`.
    case jpeg
    /// GIF: `GIF87a` or `GIF89a`.
    case gif
    /// AVIF: an ISOBMFF `ftyp` box whose major brand is `avif` or `avis`, or whose major brand is
    /// `mif1`/`msf1` with `avif` or `avis` among its compatible brands.
    case avif
    /// HEIC: an ISOBMFF `ftyp` box whose major brand is `heic`, `heix`, `heim`, `heis`, `hevc` or
    /// `hevx`, or `mif1`/`msf1` with one of those among its compatible brands.
    case heic

    /// Recognises the format of image bytes from their first bytes.
    /// - Parameter data: The bytes, from their start; 12 are enough for PNG, WebP, JPEG and GIF,
    ///   an ISOBMFF file (AVIF, HEIC) needs its whole `ftyp` box (up to 64 bytes are read).
    /// - Returns: The format, or `nil` when the bytes match no known signature.
    public static func detect(_ data: Data) -> ImageKind? {
        detect(bytes: data.prefix(64))
    }

    static func detect(bytes: some Collection<UInt8>) -> ImageKind? {
        let head = Array(bytes.prefix(64))
        if head.starts(with: pngSignature) { return .png }
        if head.count >= 12, head[0..<4].elementsEqual(riff), head[8..<12].elementsEqual(webpTag) { return .webp }
        if head.starts(with: jpegSignature) { return .jpeg }
        if head.starts(with: Array("GIF87a".utf8)) || head.starts(with: Array("GIF89a".utf8)) { return .gif }
        return isobmffKind(head)
    }

    private static let avifBrands: Set<String> = ["avif", "avis"]
    private static let heicBrands: Set<String> = ["heic", "heix", "heim", "heis", "hevc", "hevx"]
    private static let genericBrands: Set<String> = ["mif1", "msf1"]

    /// AVIF or HEIC from an ISOBMFF `ftyp` box: size (4), `ftyp`, major brand (4), minor
    /// version (4), compatible brands (4 each) to the box's end.
    private static func isobmffKind(_ head: [UInt8]) -> ImageKind? {
        guard head.count >= 12, head[4..<8].elementsEqual(Array("ftyp".utf8)) else { return nil }
        let size = Int(head[0]) << 24 | Int(head[1]) << 16 | Int(head[2]) << 8 | Int(head[3])
        let brand = { (offset: Int) in String(decoding: head[offset..<offset + 4], as: UTF8.self) }
        let major = brand(8)
        if avifBrands.contains(major) { return .avif }
        if heicBrands.contains(major) { return .heic }
        guard genericBrands.contains(major) else { return nil }
        let compatible = stride(from: 16, to: min(max(size, 16), head.count) - 3, by: 4).map(brand)
        if compatible.contains(where: avifBrands.contains) { return .avif }
        if compatible.contains(where: heicBrands.contains) { return .heic }
        return nil
    }

    /// Whether `bytes` is a strict prefix of this format's signature: data that may have been
    /// cut short before the signature was complete.
    static func truncatedSignature(_ bytes: some Collection<UInt8>) -> ImageKind? {
        let head = Array(bytes)
        guard !head.isEmpty else { return nil }
        if head.count < pngSignature.count, pngSignature.starts(with: head) { return .png }
        if head.count < jpegSignature.count, jpegSignature.starts(with: head) { return .jpeg }
        if head.count < 12 {
            // RIFF, four bytes of size (anything), WEBP.
            let pattern: [UInt8?] = riff.map { $0 } + [nil, nil, nil, nil] + webpTag.map { $0 }
            if zip(head, pattern).allSatisfy({ byte, expected in expected == nil || byte == expected }) {
                return .webp
            }
        }
        return nil
    }

    /// The media type, e.g. `image/png`.
    public var mimeType: String {
        switch self {
        case .png: "image/png"
        case .webp: "image/webp"
        case .jpeg: "image/jpeg"
        case .gif: "image/gif"
        case .avif: "image/avif"
        case .heic: "image/heic"
        }
    }

    /// The format a file extension names (`png`, `webp`, `jpg` or `jpeg`, `gif`, `avif`, `heic`
    /// or `heif`, in any case), or `nil`: the one table of image extensions, beside the types.
    package init?(fileExtension: String) {
        switch fileExtension.lowercased() {
        case "png": self = .png
        case "webp": self = .webp
        case "jpg", "jpeg": self = .jpeg
        case "gif": self = .gif
        case "avif": self = .avif
        case "heic", "heif": self = .heic
        default: return nil
        }
    }

    /// The usual file extension, without the dot.
    public var fileExtension: String {
        switch self {
        case .png: "png"
        case .webp: "webp"
        case .jpeg: "jpg"
        case .gif: "gif"
        case .avif: "avif"
        case .heic: "heic"
        }
    }

    /// The format's name as people write it: PNG, WebP, JPEG, GIF, AVIF, HEIC.
    var name: String {
        switch self {
        case .png: "PNG"
        case .webp: "WebP"
        case .jpeg: "JPEG"
        case .gif: "GIF"
        case .avif: "AVIF"
        case .heic: "HEIC"
        }
    }

    private static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    private static let jpegSignature: [UInt8] = [0xFF, 0xD8, 0xFF]
    private static let riff: [UInt8] = Array("RIFF".utf8)
    private static let webpTag: [UInt8] = Array("WEBP".utf8)
}
