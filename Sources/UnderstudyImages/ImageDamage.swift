import Foundation

/// A deliberate defect in encoded image bytes, for testing how clients fail (SPEC section 12).
/// Applied after encoding; the response's Content-Type stays the format intended.
///
/// ```swift
/// let broken = ImageDamage.badChecksum.apply(to: try image.pngData())
/// ```
public enum ImageDamage: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The bytes cut in half: what a client sees when a download stops early.
    case truncated
    /// A checksum or marker broken: PNG's IHDR chunk CRC inverted; JPEG's frame header (SOF)
    /// marker replaced by an undefined one (`FF 4F`); WebP's VP8 start code or VP8L signature
    /// byte inverted. Other bytes get their middle byte inverted.
    case badChecksum = "bad-checksum"
    /// The first 4 bytes (the start of the signature) replaced by zeros.
    case wrongSignature = "wrong-signature"
    /// 1,024 bytes of noise after the image's end (PNG's IEND, JPEG's EOI, WebP's RIFF size).
    /// Lenient decoders (libpng, libjpeg, libwebp, Pillow, browsers) ignore them; strict
    /// validators such as `pngcheck` reject the file.
    case garbageTail = "garbage-tail"

    /// The name used in stub files: `truncated`, `bad-checksum`, `wrong-signature`, `garbage-tail`.
    public var description: String { rawValue }

    /// The damaged bytes. Deterministic: the same input gives the same output.
    /// - Parameter data: encoded image bytes.
    public func apply(to data: Data) -> Data {
        var bytes = [UInt8](data)
        guard !bytes.isEmpty else { return data }
        switch self {
        case .truncated:
            bytes.removeLast(bytes.count - bytes.count / 2)
        case .wrongSignature:
            for index in 0..<min(4, bytes.count) { bytes[index] = 0 }
        case .garbageTail:
            var random = SplitMix64(seed: 0x6761_7262_6167_6521)
            bytes.reserveCapacity(bytes.count + Self.tailLength)
            for _ in 0..<Self.tailLength { bytes.append(UInt8(truncatingIfNeeded: random.next())) }
        case .badChecksum:
            Self.breakChecksum(&bytes)
        }
        return Data(bytes)
    }

    static let tailLength = 1024

    private static func breakChecksum(_ bytes: inout [UInt8]) {
        switch ImageKind.detect(bytes: bytes) {
        case .png where bytes.count >= 33:
            // Signature (8), IHDR length (4), type (4), data (13), then its CRC (4).
            for index in 29..<33 { bytes[index] ^= 0xFF }
            return
        case .jpeg:
            // The first start-of-frame marker (FF C0 ... FF CF but not C4, C8, CC) at a
            // segment boundary, found by walking the segments from SOI.
            var index = 2
            while index + 3 < bytes.count, bytes[index] == 0xFF {
                let marker = bytes[index + 1]
                if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                    bytes[index + 1] = 0x4F
                    return
                }
                if marker == 0xDA { break }  // scan data follows; no SOF before it
                index += 2 + (Int(bytes[index + 2]) << 8 | Int(bytes[index + 3]))
            }
        case .webp:
            // The first VP8 chunk's start code (9D 01 2A after the 3-byte frame tag), or the
            // first VP8L chunk's signature byte (2F).
            if let chunk = find(Array("VP8 ".utf8), in: bytes), chunk + 14 <= bytes.count {
                for index in (chunk + 11)..<(chunk + 14) { bytes[index] ^= 0xFF }
                return
            }
            if let chunk = find(Array("VP8L".utf8), in: bytes), chunk + 9 <= bytes.count {
                bytes[chunk + 8] ^= 0xFF
                return
            }
        default:
            break
        }
        bytes[bytes.count / 2] ^= 0xFF
    }

    private static func find(_ tag: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= 12 + tag.count else { return nil }
        for index in 12...(bytes.count - tag.count) where bytes[index] == tag[0] {
            if bytes[index..<index + tag.count].elementsEqual(tag) { return index }
        }
        return nil
    }
}
