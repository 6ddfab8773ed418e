import Foundation

/// A content coding a stub wraps its body in (``StubResponse/encoded(_:labelled:)``): gzip and
/// zlib ("deflate") streams made of stored deflate blocks, valid for every decoder, the same
/// bytes on every platform, and written without zlib, which builds without the C codecs do not
/// link. The bytes are not smaller; the hazards are about the labels.
public enum ContentCoding: String, Sendable, CaseIterable {
    /// gzip.
    case gzip
    /// zlib, which HTTP calls `deflate`.
    case deflate

    /// `data` wrapped in this coding's stream.
    /// - Parameter data: The bytes to wrap.
    public func encode(_ data: Data) -> Data {
        let bytes = [UInt8](data)
        switch self {
        case .gzip:
            // No name, no time stamp (MTIME 0), OS 255 (unknown): the same bytes every run.
            let header: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF]
            return Data(header + Self.storedBlocks(bytes) + Self.le32(Self.crc32(bytes)) + Self.le32(UInt32(truncatingIfNeeded: bytes.count)))
        case .deflate:
            return Data([0x78, 0x01] + Self.storedBlocks(bytes) + Self.be32(Self.adler32(bytes)))
        }
    }

    /// Deflate stored blocks of at most 65,535 bytes, the last marked final.
    private static func storedBlocks(_ bytes: [UInt8]) -> [UInt8] {
        var out = [UInt8]()
        var offset = 0
        repeat {
            let count = min(65_535, bytes.count - offset)
            let final: UInt8 = offset + count == bytes.count ? 1 : 0
            let length = UInt16(count)
            out += [final, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8)]
            out += bytes[offset..<offset + count]
            offset += count
        } while offset < bytes.count
        return out
    }

    private static let table: [UInt32] = (0..<256).map { index in
        (0..<8).reduce(UInt32(index)) { crc, _ in crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
    }

    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        ~bytes.reduce(UInt32.max) { crc, byte in table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
    }

    private static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        return b << 16 | a
    }

    private static func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) } }
    private static func be32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8((value >> (24 - 8 * $0)) & 0xFF) } }
}
