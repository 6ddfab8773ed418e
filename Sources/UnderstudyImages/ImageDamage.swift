import Foundation

/// A deliberate defect in encoded image bytes, for testing how clients fail. Applied after
/// encoding; the response's Content-Type stays the format intended.
///
/// What each kind does to AVIF and HEIC (ISOBMFF boxes) and to GIF (blocks), each checked
/// against a real decoder (avifdec, heif-convert, Pillow or giflib) by the tests:
///
/// | damage            | AVIF / HEIC                                              | GIF                                                  |
/// |-------------------|----------------------------------------------------------|------------------------------------------------------|
/// | `truncated`       | the file cut in half: the `mdat` (coded image) ends early | cut in half, inside the image data                    |
/// | `bad-checksum`    | the first 4 bytes of the `mdat` payload inverted (ISOBMFF has no checksum; this breaks the first coded item's AV1 OBU header or HEVC NAL length) | the first image's LZW minimum code size set to 12 (valid: 2 to 8) |
/// | `wrong-signature` | the `ftyp` box's size zeroed (first 4 bytes)             | `GIF8` of `GIF89a` zeroed                             |
/// | `garbage-tail`    | 1,024 bytes of noise after the last box: libavif and libheif stop once they have `meta` and `mdat`, and decode the image | 1,024 bytes of noise after the trailer (`3B`): decoders stop at the trailer |
///
/// `garbage-tail` is the same for every format: bytes after the image's end, to test that a
/// client tolerates them as browsers do; `bad-checksum` is the damage decoders must refuse.
///
/// ```swift
/// let broken = ImageDamage.badChecksum.apply(to: try image.pngData())
/// ```
public enum ImageDamage: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The bytes cut in half: what a client sees when a download stops early.
    case truncated
    /// A checksum or marker broken: PNG's IHDR chunk CRC inverted; JPEG's frame header (SOF)
    /// marker replaced by an undefined one (`FF 4F`); WebP's VP8 start code or VP8L signature
    /// byte inverted; AVIF's and HEIC's first 4 `mdat` payload bytes inverted; GIF's first LZW
    /// minimum code size set to 12. Other bytes get their middle byte inverted.
    case badChecksum = "bad-checksum"
    /// The first 4 bytes (the start of the signature) replaced by zeros.
    case wrongSignature = "wrong-signature"
    /// 1,024 bytes of noise after the image's end (PNG's IEND, JPEG's EOI, WebP's RIFF size,
    /// AVIF's and HEIC's last box, GIF's trailer). Lenient decoders (libpng, libjpeg, libwebp,
    /// libavif, libheif, giflib, Pillow, browsers) ignore them; strict validators such as
    /// `pngcheck` reject the file.
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
            bytes += (0..<Self.tailLength).map { _ in UInt8(truncatingIfNeeded: random.next()) }
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
        case .avif, .heic:
            if let mdat = topLevelBoxes(bytes).first(where: { $0.type == "mdat" }), mdat.payload + 4 <= bytes.count {
                for index in mdat.payload..<(mdat.payload + 4) { bytes[index] ^= 0xFF }
                return
            }
        case .gif:
            if let codeSize = gifFirstCodeSize(bytes) {
                bytes[codeSize] = 12
                return
            }
        default:
            break
        }
        bytes[bytes.count / 2] ^= 0xFF
    }

    /// The top-level ISOBMFF boxes: where each starts, its type, where its payload starts.
    package static func topLevelBoxes(_ bytes: [UInt8]) -> [(offset: Int, type: String, payload: Int)] {
        var boxes: [(offset: Int, type: String, payload: Int)] = []
        var offset = 0
        while offset + 8 <= bytes.count {
            var size = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            var header = 8
            if size == 1, offset + 16 <= bytes.count {
                size = bytes[offset + 8..<offset + 16].reduce(0) { ($0 << 8) | Int($1) }
                header = 16
            } else if size == 0 {
                size = bytes.count - offset
            }
            boxes.append((offset, type, offset + header))
            guard size >= header else { break }
            offset += size
        }
        return boxes
    }

    /// The offset of the first image's LZW minimum code size byte: after the header (6), the
    /// screen descriptor (7), the global colour table, extensions, and the image descriptor (10)
    /// with its local colour table.
    private static func gifFirstCodeSize(_ bytes: [UInt8]) -> Int? {
        guard bytes.count > 13 else { return nil }
        var index = 13
        if bytes[10] & 0x80 != 0 { index += 3 << (Int(bytes[10] & 7) + 1) }
        while index < bytes.count {
            switch bytes[index] {
            case 0x21:  // extension: label, then sub-blocks to a zero length
                index += 2
                while index < bytes.count, bytes[index] != 0 { index += Int(bytes[index]) + 1 }
                index += 1
            case 0x2C:
                guard index + 10 < bytes.count else { return nil }
                var at = index + 10
                let flags = bytes[index + 9]
                if flags & 0x80 != 0 { at += 3 << (Int(flags & 7) + 1) }
                return at < bytes.count ? at : nil
            default:
                return nil
            }
        }
        return nil
    }

    private static func find(_ tag: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= 12 + tag.count else { return nil }
        for index in 12...(bytes.count - tag.count) where bytes[index] == tag[0] {
            if bytes[index..<index + tag.count].elementsEqual(tag) { return index }
        }
        return nil
    }
}
