import Foundation

/// PNG in Swift, the one format of Linux builds without the C codecs (`--disable-default-traits`).
///
/// Decoding reads every PNG: each colour type and bit depth, palettes with transparency, `tRNS`
/// keys, Adam7 interlacing; 16-bit samples are rounded to 8 bits, as libpng's codec here does.
/// Encoding writes 8-bit RGB or RGBA with DEFLATE's stored blocks: larger files than zlib's,
/// the same pixels, and no compressor to carry.
enum SwiftPNGCodec {
    private static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    // MARK: Decoding

    static func decode(_ data: Data, pixelLimit: Int) throws -> RGBAImage {
        let bytes = [UInt8](data)
        var position = signature.count
        var header: (width: Int, height: Int, depth: Int, colour: Int, interlaced: Bool)?
        var palette: [UInt8] = [], transparency: [UInt8] = [], compressed: [UInt8] = []
        var ended = false
        func corrupt(_ reason: String) -> ImageError { ImageError(.corrupt, "corrupt PNG: \(reason)") }
        while !ended {
            guard position + 12 <= bytes.count else { throw ImageError.truncated("PNG", byteCount: bytes.count) }
            let length = bytes[position..<position + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: bytes[position + 4..<position + 8], as: UTF8.self)
            guard position + 12 + length <= bytes.count else { throw ImageError.truncated("PNG", byteCount: bytes.count) }
            let body = Array(bytes[position + 8..<position + 8 + length])
            let stored = bytes[position + 8 + length..<position + 12 + length].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            guard CRC32.checksum(bytes[position + 4..<position + 8 + length]) == stored else {
                throw corrupt("the \(type) chunk's CRC does not match its data")
            }
            position += 12 + length
            switch type {
            case "IHDR":
                guard length == 13 else { throw corrupt("an IHDR chunk of \(length) bytes, not 13") }
                let width = body[0..<4].reduce(0) { $0 << 8 | Int($1) }, height = body[4..<8].reduce(0) { $0 << 8 | Int($1) }
                let depth = Int(body[8]), colour = Int(body[9])
                let allowed: [Int: [Int]] = [0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16]]
                guard allowed[colour]?.contains(depth) == true else { throw corrupt("colour type \(colour) with bit depth \(depth)") }
                guard width > 0, height > 0 else { throw ImageError(.invalidDimensions, "PNG of \(width)x\(height) pixels: expected at least 1x1") }
                try RGBAImage.checkSize(width: width, height: height, pixelLimit: pixelLimit)
                header = (width, height, depth, colour, body[12] == 1)
            case "PLTE": palette = body
            case "tRNS": transparency = body
            case "IDAT": compressed += body
            case "IEND": ended = true
            default: break
            }
        }
        guard let header else { throw corrupt("no IHDR chunk") }
        guard compressed.count > 6 else { throw corrupt("no image data") }
        if header.colour == 3, palette.isEmpty { throw corrupt("a palette image with no PLTE chunk") }

        let channels = [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][header.colour]!
        let bitsPerPixel = channels * header.depth
        let passes: [(x: Int, y: Int, dx: Int, dy: Int)] = header.interlaced
            ? [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
            : [(0, 0, 1, 1)]
        let sizes = passes.map { pass in
            ((header.width - pass.x + pass.dx - 1) / pass.dx, (header.height - pass.y + pass.dy - 1) / pass.dy)
        }
        let expected = sizes.reduce(0) { total, size in
            size.0 == 0 || size.1 == 0 ? total : total + size.1 * (1 + (size.0 * bitsPerPixel + 7) / 8)
        }
        let raw: [UInt8]
        do {
            raw = try Inflate.decompress(Array(compressed[2...]), limit: expected)
        } catch {
            throw corrupt("the image data cannot be inflated: \(error.reason)")
        }
        guard raw.count == expected else { throw ImageError.truncated("PNG", byteCount: data.count) }

        var pixels = [UInt8](repeating: 0, count: header.width * header.height * 4)
        var offset = 0
        for (pass, size) in zip(passes, sizes) where size.0 > 0 && size.1 > 0 {
            let stride = (size.0 * bitsPerPixel + 7) / 8
            let rows = try unfilter(raw[offset..<offset + size.1 * (stride + 1)], stride: stride, bytesPerPixel: max(1, bitsPerPixel / 8))
            offset += size.1 * (stride + 1)
            for row in 0..<size.1 {
                for column in 0..<size.0 {
                    let rgba = pixel(rows, row: row * stride, column: column, header.depth, header.colour, palette, transparency)
                    let out = ((pass.y + row * pass.dy) * header.width + pass.x + column * pass.dx) * 4
                    pixels[out] = rgba.0
                    pixels[out + 1] = rgba.1
                    pixels[out + 2] = rgba.2
                    pixels[out + 3] = rgba.3
                }
            }
        }
        return RGBAImage(unchecked: header.width, header.height, pixels)
    }

    /// The scanlines without their filter bytes, each filter undone.
    private static func unfilter(_ filtered: ArraySlice<UInt8>, stride: Int, bytesPerPixel: Int) throws -> [UInt8] {
        var rows = [UInt8](repeating: 0, count: filtered.count / (stride + 1) * stride)
        var input = filtered.startIndex
        for row in 0..<filtered.count / (stride + 1) {
            let filter = filtered[input]
            input += 1
            let start = row * stride
            for index in 0..<stride {
                let x = filtered[input + index]
                let a = index >= bytesPerPixel ? Int(rows[start + index - bytesPerPixel]) : 0
                let b = row > 0 ? Int(rows[start - stride + index]) : 0
                let c = row > 0 && index >= bytesPerPixel ? Int(rows[start - stride + index - bytesPerPixel]) : 0
                let predicted: Int
                switch filter {
                case 0: predicted = 0
                case 1: predicted = a
                case 2: predicted = b
                case 3: predicted = (a + b) / 2
                case 4:
                    let p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c)
                    predicted = pa <= pb && pa <= pc ? a : pb <= pc ? b : c
                default:
                    throw ImageError(.corrupt, "corrupt PNG: a scanline with filter type \(filter)")
                }
                rows[start + index] = x &+ UInt8(truncatingIfNeeded: predicted)
            }
            input += stride
        }
        return rows
    }

    /// One pixel of an unfiltered scanline as 8-bit RGBA.
    private static func pixel(
        _ rows: [UInt8], row: Int, column: Int, _ depth: Int, _ colour: Int, _ palette: [UInt8], _ transparency: [UInt8]
    ) -> (UInt8, UInt8, UInt8, UInt8) {
        let channels = [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][colour]!
        func sample(_ channel: Int) -> Int {
            switch depth {
            case 16:
                let at = row + (column * channels + channel) * 2
                return Int(rows[at]) << 8 | Int(rows[at + 1])
            case 8:
                return Int(rows[row + column * channels + channel])
            default:
                let bit = column * depth
                return Int(rows[row + bit / 8] >> (8 - depth - bit % 8)) & ((1 << depth) - 1)
            }
        }
        func eight(_ value: Int) -> UInt8 {
            depth == 16 ? UInt8((value * 255 + 32895) >> 16) : UInt8(value * 255 / ((1 << depth) - 1))
        }
        func key(_ channel: Int) -> Int { Int(transparency[channel * 2]) << 8 | Int(transparency[channel * 2 + 1]) }
        switch colour {
        case 0:
            let grey = sample(0)
            let clear = transparency.count >= 2 && grey == key(0)
            return (eight(grey), eight(grey), eight(grey), clear ? 0 : 255)
        case 2:
            let (r, g, b) = (sample(0), sample(1), sample(2))
            let clear = transparency.count >= 6 && r == key(0) && g == key(1) && b == key(2)
            return (eight(r), eight(g), eight(b), clear ? 0 : 255)
        case 3:
            let index = sample(0)
            guard index * 3 + 2 < palette.count else { return (0, 0, 0, 255) }
            let alpha = index < transparency.count ? transparency[index] : 255
            return (palette[index * 3], palette[index * 3 + 1], palette[index * 3 + 2], alpha)
        case 4:
            let grey = eight(sample(0))
            return (grey, grey, grey, eight(sample(1)))
        default:
            return (eight(sample(0)), eight(sample(1)), eight(sample(2)), eight(sample(3)))
        }
    }

    // MARK: Encoding

    /// 8-bit RGB when every pixel is opaque, else RGBA; no filtering, stored DEFLATE blocks.
    static func encode(_ image: RGBAImage) throws -> Data {
        let opaque = image.isOpaque
        let channels = opaque ? 3 : 4
        var raw = [UInt8]()
        raw.reserveCapacity(image.height * (image.width * channels + 1))
        image.pixels.withUnsafeBufferPointer { pixels in
            for y in 0..<image.height {
                raw.append(0)
                let row = y * image.width * 4
                if opaque {
                    for x in 0..<image.width {
                        raw.append(pixels[row + x * 4])
                        raw.append(pixels[row + x * 4 + 1])
                        raw.append(pixels[row + x * 4 + 2])
                    }
                } else {
                    raw.append(contentsOf: pixels[row..<row + image.width * 4])
                }
            }
        }
        var zlib: [UInt8] = [0x78, 0x01]
        var start = 0
        repeat {
            let count = min(65_535, raw.count - start)
            let last: UInt8 = start + count == raw.count ? 1 : 0
            zlib += [last, UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
            zlib.append(contentsOf: raw[start..<start + count])
            start += count
        } while start < raw.count
        zlib += bigEndian(adler32(raw))

        var png = Data(signature)
        func chunk(_ type: String, _ body: [UInt8]) {
            let typed = Array(type.utf8) + body
            png.append(contentsOf: bigEndian(UInt32(body.count)))
            png.append(contentsOf: typed)
            png.append(contentsOf: bigEndian(CRC32.checksum(typed[...])))
        }
        chunk("IHDR", bigEndian(UInt32(image.width)) + bigEndian(UInt32(image.height)) + [8, opaque ? 2 : 6, 0, 0, 0])
        chunk("IDAT", zlib)
        chunk("IEND", [])
        return png
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    private static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        for chunk in stride(from: 0, to: bytes.count, by: 5552) {
            for byte in bytes[chunk..<min(chunk + 5552, bytes.count)] {
                a += UInt32(byte)
                b += a
            }
            a %= 65_521
            b %= 65_521
        }
        return b << 16 | a
    }
}
