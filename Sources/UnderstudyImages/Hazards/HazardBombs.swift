import Foundation

/// The decompression bombs: files of a few kilobytes that declare 30,000 x 30,000 pixels.
/// Understudy writes them without ever holding a canvas of that size: the PNG and GIF are
/// written chunk by chunk here, and the JPEG and WebP wrap a small image the codecs encode.
enum HazardBombs {
    /// The side every bomb declares: 900 million pixels, 3.6 GB as RGBA.
    static let side = 30_000

    /// IHDR of 30000 x 30000, 1-bit grey, then one IDAT whose zlib stream holds 8 rows of
    /// zeros as a stored, non-final block and stops there: a header whose data ends early, as
    /// PNG has no way to put a small image on a large canvas. An IEND follows, so a chunk
    /// reader finds a well-formed file and only the pixel decoder meets the end.
    static var png: Data {
        let rowBytes = 1 + (side + 7) / 8
        let block = [UInt8](repeating: 0, count: rowBytes * 8)
        let length = UInt16(block.count)
        let zlib: [UInt8] = [0x78, 0x01, 0x00, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8)] + block
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        bytes += chunk("IHDR", be32(UInt32(side)) + be32(UInt32(side)) + [1, 0, 0, 0, 0])
        bytes += chunk("IDAT", zlib)
        bytes += chunk("IEND", [])
        return Data(bytes)
    }

    /// A 30000 x 30000 logical screen holding one 1 x 1 frame: GIF allows a small image
    /// anywhere on a large screen, and decoders size their canvas from the screen.
    static var gif: Data {
        var bytes = Array("GIF89a".utf8)
        bytes += le16(UInt16(side)) + le16(UInt16(side)) + [0x80, 0, 0]   // global table of 2 colours
        bytes += [0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00]
        bytes += [0x2C] + le16(0) + le16(0) + le16(1) + le16(1) + [0]       // image descriptor
        bytes += [0x02, 0x02, 0x44, 0x01, 0x00]                             // LZW: one pixel of colour 0
        bytes += [0x3B]
        return Data(bytes)
    }

    /// A 16 x 16 baseline JPEG whose SOF0 is rewritten to declare 30000 x 30000: the data then
    /// ends after the first few blocks, long before the declared image does.
    static func jpeg(from small: Data, width: Int = side, height: Int = side) -> Data {
        var bytes = [UInt8](small)
        var index = 2
        while index + 9 < bytes.count, bytes[index] == 0xFF {
            let marker = bytes[index + 1]
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            if marker == 0xC0 || marker == 0xC2 {
                // SOF stores the height first.
                bytes[index + 5...index + 6] = ArraySlice(be16(UInt16(height)))
                bytes[index + 7...index + 8] = ArraySlice(be16(UInt16(width)))
                break
            }
            index += 2 + length
        }
        return Data(bytes)
    }

    /// An animated WebP of a 30000 x 30000 canvas with one frame, the `small` lossless WebP at
    /// the top left, looping for ever: libwebp's mux places the frame and never decodes it.
    static func webP(wrapping small: Data) throws -> Data {
        try HazardCodec.webP(WebPLayout(frames: [WebPLayout.Frame(bitstream: small)], animation: (side, side, 0)))
    }

    /// `png` with a `tEXt` chunk of 256 KB (keyword `Comment`) right after IHDR, ahead of
    /// every IDAT: a decoder that buffers metadata before the first pixel holds it all.
    static func metadataFirst(_ png: Data, bytes count: Int = 256 * 1024) -> Data {
        let bytes = [UInt8](png)
        // Signature (8) and IHDR (4 + 4 + 13 + 4).
        let afterHeader = 8 + 25
        let text = [UInt8](repeating: UInt8(ascii: "x"), count: count)
        let metadata = chunk("tEXt", Array("Comment".utf8) + [0] + text)
        return Data(bytes[..<afterHeader] + metadata + bytes[afterHeader...])
    }

    /// `data` (PNG, JPEG or GIF) with its header rewritten to declare `size`: a larger size
    /// makes the data end early, as the bombs do.
    static func declaring(_ size: (width: Int, height: Int), in data: Data, kind: ImageKind) -> Data {
        var bytes = [UInt8](data)
        switch kind {
        case .png where bytes.count >= 33:
            bytes[16..<24] = ArraySlice(be32(UInt32(size.width)) + be32(UInt32(size.height)))
            bytes[29..<33] = ArraySlice(be32(CRC32.checksum(bytes[12..<29])))
        case .gif where bytes.count >= 10:
            bytes[6..<10] = ArraySlice(le16(UInt16(size.width)) + le16(UInt16(size.height)))
            // The first image descriptor still gives the frame's own size: a small frame on a
            // large screen, which GIF allows.
        case .jpeg:
            return jpeg(from: data, width: size.width, height: size.height)
        default:
            break
        }
        return Data(bytes)
    }

    private static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + data
        return be32(UInt32(data.count)) + typed + be32(CRC32.checksum(typed[...]))
    }

    private static func be16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
    private static func be32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8((value >> (24 - 8 * $0)) & 0xFF) } }
    private static func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
}
