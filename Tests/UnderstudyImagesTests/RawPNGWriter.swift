import Foundation

/// A deliberately simple PNG writer, independent of libpng: any colour type and bit depth,
/// optional Adam7 interlacing, filter 0 everywhere, zlib "stored" (uncompressed) blocks.
/// It makes fixtures for every kind of PNG without binary files in the repository.
struct RawPNGWriter {
    enum ColorType: UInt8 {
        case grey = 0, rgb = 2, palette = 3, greyAlpha = 4, rgba = 6

        var channels: Int {
            switch self {
            case .grey, .palette: 1
            case .greyAlpha: 2
            case .rgb: 3
            case .rgba: 4
            }
        }
    }

    var width: Int
    var height: Int
    var colorType: ColorType
    var bitDepth: Int
    var interlaced = false
    /// Samples per pixel (`colorType.channels` of them), row-major, each below 2^bitDepth.
    var samples: [[Int]]
    /// PLTE entries (r, g, b) for palette images.
    var palette: [(UInt8, UInt8, UInt8)] = []
    /// The tRNS chunk's payload, if any.
    var transparency: [UInt8]?

    func encode() -> Data {
        var png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        var header = Data()
        header.appendBigEndian(UInt32(width))
        header.appendBigEndian(UInt32(height))
        header.append(contentsOf: [UInt8(bitDepth), colorType.rawValue, 0, 0, interlaced ? 1 : 0])
        png.appendChunk("IHDR", header)
        if colorType == .palette {
            png.appendChunk("PLTE", Data(palette.flatMap { [$0.0, $0.1, $0.2] }))
        }
        if let transparency { png.appendChunk("tRNS", Data(transparency)) }
        png.appendChunk("IDAT", Self.zlibStored(scanlines()))
        png.appendChunk("IEND", Data())
        return png
    }

    /// The filtered (filter type 0) scanlines of the image or of each Adam7 pass in turn.
    private func scanlines() -> [UInt8] {
        let passes: [(x: Int, y: Int, dx: Int, dy: Int)] = interlaced
            ? [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
            : [(0, 0, 1, 1)]
        var out: [UInt8] = []
        for pass in passes {
            let xs = Array(stride(from: pass.x, to: width, by: pass.dx))
            let ys = Array(stride(from: pass.y, to: height, by: pass.dy))
            guard !xs.isEmpty, !ys.isEmpty else { continue }  // empty passes have no scanlines
            for y in ys {
                out.append(0)
                out.append(contentsOf: pack(xs.flatMap { samples[y * width + $0] }))
            }
        }
        return out
    }

    /// Packs samples MSB first (1, 2, 4 bits), as bytes (8) or big-endian pairs (16).
    private func pack(_ row: [Int]) -> [UInt8] {
        switch bitDepth {
        case 16:
            return row.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        case 8:
            return row.map { UInt8($0) }
        default:
            var bytes: [UInt8] = []
            var current = 0
            var used = 0
            for sample in row {
                current = current << bitDepth | sample
                used += bitDepth
                if used == 8 {
                    bytes.append(UInt8(current))
                    current = 0
                    used = 0
                }
            }
            if used > 0 { bytes.append(UInt8(current << (8 - used))) }
            return bytes
        }
    }

    static func zlibStored(_ bytes: [UInt8]) -> Data {
        var out = Data([0x78, 0x01])
        var offset = 0
        repeat {
            let count = min(65535, bytes.count - offset)
            let final = offset + count == bytes.count
            out.append(final ? 1 : 0)
            out.append(contentsOf: [UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)])
            out.append(contentsOf: bytes[offset..<offset + count])
            offset += count
        } while offset < bytes.count
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        out.appendBigEndian(b << 16 | a)
        return out
    }

    static func crc32(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}

extension Data {
    mutating func appendBigEndian(_ value: UInt32) {
        append(contentsOf: [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)])
    }

    mutating func appendChunk(_ type: String, _ payload: Data) {
        appendBigEndian(UInt32(payload.count))
        let body = Data(type.utf8) + payload
        append(body)
        appendBigEndian(RawPNGWriter.crc32(body))
    }
}
