import Foundation

/// The image sizes a file declares in its header, read before any decoder runs, so that every
/// backend (libpng or ImageIO alike) meets the pixel limit the same way and a decompression bomb
/// is refused before a decoder allocates for it.
enum ImageHeader {
    /// A size a file declares; `what` names where, for a container that declares several
    /// (`nil`: the image's own size).
    struct Declared {
        var what: String?
        var width: Int
        var height: Int
    }

    /// Every size `data` declares that a decoder would allocate by: PNG's `IHDR`, GIF's logical
    /// screen, WebP's canvas or frame, JPEG's first frame header, each `ispe` property and grid
    /// of an AVIF or HEIC file. Read leniently: what cannot be read is left out, and the decoder
    /// then refuses the file itself.
    static func declaredSizes(_ kind: ImageKind, _ data: Data) -> [Declared] {
        // A JPEG's frame header follows its metadata segments (EXIF and ICC are at most 64 KB
        // each); an ISOBMFF file's `meta` box may point anywhere in the file.
        let needed = switch kind {
        case .png, .gif, .webp: 64
        case .jpeg: 256 * 1024
        case .avif, .heic: data.count
        }
        let bytes = [UInt8](data.prefix(needed))
        func bigEndian(_ at: Int, _ width: Int) -> Int? {
            guard at >= 0, at + width <= bytes.count else { return nil }
            return bytes[at..<at + width].reduce(0) { $0 << 8 | Int($1) }
        }
        func littleEndian(_ at: Int, _ width: Int) -> Int? {
            guard at >= 0, at + width <= bytes.count else { return nil }
            return bytes[at..<at + width].reversed().reduce(0) { $0 << 8 | Int($1) }
        }
        switch kind {
        case .png:
            guard bytes.count >= 24, bytes[12..<16].elementsEqual("IHDR".utf8),
                  let width = bigEndian(16, 4), let height = bigEndian(20, 4) else { return [] }
            return [Declared(width: width, height: height)]
        case .gif:
            guard let width = littleEndian(6, 2), let height = littleEndian(8, 2) else { return [] }
            return [Declared(width: width, height: height)]
        case .webp:
            guard bytes.count >= 30 else { return [] }
            let chunk = String(decoding: bytes[12..<16], as: UTF8.self)
            switch chunk {
            case "VP8X":
                guard let width = littleEndian(24, 3), let height = littleEndian(27, 3) else { return [] }
                return [Declared(width: width + 1, height: height + 1)]
            case "VP8L":
                guard bytes[20] == 0x2F, let bits = littleEndian(21, 4) else { return [] }
                return [Declared(width: bits & 0x3FFF + 1, height: (bits >> 14) & 0x3FFF + 1)]
            case "VP8 ":
                guard bytes[23] == 0x9D, bytes[24] == 0x01, bytes[25] == 0x2A,
                      let width = littleEndian(26, 2), let height = littleEndian(28, 2) else { return [] }
                return [Declared(width: width & 0x3FFF, height: height & 0x3FFF)]
            default:
                return []
            }
        case .jpeg:
            // Markers from SOI to the first frame header (SOF0..SOF15 but DHT, JPG and DAC).
            var offset = 2
            while offset + 4 <= bytes.count, bytes[offset] == 0xFF {
                let marker = bytes[offset + 1]
                if marker == 0xFF { offset += 1; continue }
                guard let length = bigEndian(offset + 2, 2) else { return [] }
                if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                    guard let height = bigEndian(offset + 5, 2), let width = bigEndian(offset + 7, 2) else { return [] }
                    return [Declared(width: width, height: height)]
                }
                offset += 2 + length
            }
            return []
        case .avif, .heic:
            return ISOBMFF(bytes: bytes).declaredImageSizes().map { declared in
                // The primary image's `ispe` is the image's own size; grids are named.
                Declared(what: declared.what == "an ispe property" ? nil : declared.what, width: declared.width, height: declared.height)
            }
        }
    }
}
