import Foundation
import UnderstudyImages
import XCTest

/// Every PNG colour type, bit depth, transparency kind and interlacing decodes to the right
/// RGBA: from fixtures of an independent writer (``RawPNGWriter``) and of Pillow.
final class PNGDecodingTests: XCTestCase {
    private let width = 13   // odd sizes: partial bytes at low bit depths, short Adam7 passes
    private let height = 11

    /// The valid (colour type, bit depth) pairs of the PNG specification.
    private let combinations: [(RawPNGWriter.ColorType, [Int])] = [
        (.grey, [1, 2, 4, 8, 16]), (.rgb, [8, 16]), (.palette, [1, 2, 4, 8]),
        (.greyAlpha, [8, 16]), (.rgba, [8, 16]),
    ]

    func testEveryColorTypeAndBitDepthDecodes() throws {
        var checked = 0
        for (colorType, depths) in combinations {
            for depth in depths {
                for interlaced in [false, true] {
                    let withTransparency: [Bool] = [.grey, .rgb, .palette].contains(colorType) ? [false, true] : [false]
                    for transparency in withTransparency {
                        let (writer, expected) = fixture(colorType, depth, interlaced: interlaced, transparency: transparency)
                        let label = "colour type \(colorType.rawValue), \(depth)-bit, interlaced \(interlaced), tRNS \(transparency)"
                        let image = try RGBAImage(decoding: writer.encode())
                        XCTAssertEqual(image.width, width, label)
                        XCTAssertEqual(image.height, height, label)
                        XCTAssertNil(Pixels.firstDifference(image.pixels, expected, width: width), label)
                        checked += 1
                    }
                }
            }
        }
        XCTAssertEqual(checked, 2 * (5 + 2 + 4 + 2 + 2) + 2 * (5 + 2 + 4))
    }

    func testSixteenBitSamplesAreRoundedToEightBits() throws {
        // 257 * v maps to v exactly; the values between round to the nearest.
        let values = [0, 128, 129, 257, 385, 386, 65535 - 129, 65535]
        let writer = RawPNGWriter(width: values.count, height: 1, colorType: .grey, bitDepth: 16, samples: values.map { [$0] })
        let image = try RGBAImage(decoding: writer.encode())
        XCTAssertEqual(image.pixels.enumerated().filter { $0.offset % 4 == 0 }.map(\.element), [0, 0, 1, 1, 1, 2, 254, 255])
    }

    func testInterlacedImageSmallerThanThePassGrid() throws {
        // 1x1 and 3x2 images leave most Adam7 passes empty.
        for (w, h) in [(1, 1), (3, 2), (9, 1)] {
            let samples = (0..<w * h).map { [($0 * 40) % 256, 7, 200, 255 - $0] }
            let writer = RawPNGWriter(width: w, height: h, colorType: .rgba, bitDepth: 8, interlaced: true, samples: samples)
            let image = try RGBAImage(decoding: writer.encode())
            XCTAssertEqual(image.pixels, samples.flatMap { $0.map(UInt8.init) }, "\(w)x\(h)")
        }
    }

    // MARK: Pillow fixtures

    func testPillowWrittenPNGsDecode() throws {
        let scratch = try Scratch()
        // (Pillow mode, expected bit depth, expected colour type)
        let modes: [(String, Int, Int)] = [
            ("1", 1, 0), ("L", 8, 0), ("LA", 8, 4), ("RGB", 8, 2), ("RGBA", 8, 6),
            ("P2", 2, 3), ("P4", 4, 3), ("P8", 8, 3), ("I;16", 16, 0),
        ]
        for (mode, depth, colorType) in modes {
            let (raw, expected) = pillowInput(mode)
            let rawPath = try scratch.write(Data(raw), "\(mode).raw")
            let pngPath = scratch.path("\(mode).png")
            try Tools.pillow(Self.pillowWriter, [mode, "\(width)", "\(height)", rawPath, pngPath])
            let png = try scratch.read("\(mode).png")
            let header = Pixels.pngHeader(png)
            XCTAssertEqual(header.bitDepth, depth, "Pillow wrote \(mode) at an unexpected depth")
            XCTAssertEqual(header.colorType, colorType, "Pillow wrote \(mode) as an unexpected colour type")
            let image = try RGBAImage(decoding: png)
            XCTAssertNil(Pixels.firstDifference(image.pixels, expected, width: width), "Pillow \(mode)")
        }
    }

    /// Builds a PNG from raw samples in one of Pillow's modes. argv: mode, width, height, raw, out.
    private static let pillowWriter = """
    import sys
    from PIL import Image
    mode, w, h, raw_path, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
    raw = open(raw_path, 'rb').read()
    if mode == '1':
        Image.frombytes('L', (w, h), raw).convert('1', dither=Image.Dither.NONE).save(out)
    elif mode.startswith('P'):
        bits = int(mode[1:])
        n = 1 << bits
        im = Image.frombytes('P', (w, h), raw)
        im.putpalette([v for i in range(n) for v in ((i * 53) % 256, (i * 97) % 256, (i * 151) % 256)])
        im.save(out, bits=bits, transparency=bytes((i * 71) % 256 for i in range(n // 2)))
    else:
        Image.frombytes(mode, (w, h), raw).save(out)
    """

    /// Raw bytes for Pillow's `frombytes` in `mode`, and the RGBA the PNG must decode to.
    private func pillowInput(_ mode: String) -> (raw: [UInt8], expected: [UInt8]) {
        var raw: [UInt8] = []
        var expected: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                let v = (x * 37 + y * 101 + x * y * 13) % 256
                switch mode {
                case "1":
                    let bit: UInt8 = (x + y) % 3 == 0 ? 255 : 0
                    raw.append(bit)
                    expected += [bit, bit, bit, 255]
                case "L":
                    raw.append(UInt8(v))
                    expected += [UInt8(v), UInt8(v), UInt8(v), 255]
                case "LA":
                    raw += [UInt8(v), UInt8(255 - v)]
                    expected += [UInt8(v), UInt8(v), UInt8(v), UInt8(255 - v)]
                case "RGB":
                    raw += [UInt8(v), UInt8((v * 3) % 256), UInt8(x * 19)]
                    expected += [UInt8(v), UInt8((v * 3) % 256), UInt8(x * 19), 255]
                case "RGBA":
                    raw += [UInt8(v), UInt8((v * 3) % 256), UInt8(x * 19), UInt8(y * 23)]
                    expected += raw.suffix(4)
                case "I;16":
                    let sample = (x * 7919 + y * 104_729 + x * y * 13) % 65536
                    raw += [UInt8(sample & 0xFF), UInt8(sample >> 8)]  // little-endian in memory
                    let g = UInt8((sample * 255 + 32767) / 65535)
                    expected += [g, g, g, 255]
                default:  // P2, P4, P8
                    let entries = 1 << Int(mode.dropFirst())!
                    let index = v % entries
                    raw.append(UInt8(index))
                    let alpha = index < entries / 2 ? UInt8((index * 71) % 256) : 255
                    expected += [UInt8((index * 53) % 256), UInt8((index * 97) % 256), UInt8((index * 151) % 256), alpha]
                }
            }
        }
        return (raw, expected)
    }

    // MARK: Fixtures of the independent writer

    private func fixture(
        _ colorType: RawPNGWriter.ColorType, _ depth: Int, interlaced: Bool, transparency: Bool
    ) -> (RawPNGWriter, [UInt8]) {
        let maxValue = (1 << depth) - 1
        func sample(_ x: Int, _ y: Int, _ channel: Int) -> Int {
            let wide: Int = x * 7919 + y * 104_729 + channel * 30011 + x * y * 13
            let narrow: Int = x * 37 + y * 101 + channel * 59 + x * y * 13
            return depth == 16 ? wide % 65536 : narrow % (maxValue + 1)
        }
        func to8(_ value: Int) -> UInt8 {
            UInt8(depth == 16 ? (value * 255 + 32767) / 65535 : value * 255 / maxValue)
        }
        let paletteSize = min(1 << depth, 256)
        let palette: [(UInt8, UInt8, UInt8)] = (0..<paletteSize).map { (i: Int) -> (UInt8, UInt8, UInt8) in
            let r: Int = (i * 53) % 256
            let g: Int = (i * 97) % 256
            let b: Int = (i * 151) % 256
            return (UInt8(r), UInt8(g), UInt8(b))
        }
        let paletteAlpha = (0..<paletteSize / 2 + 1).map { UInt8(($0 * 71) % 256) }

        var samples: [[Int]] = []
        for y in 0..<height {
            for x in 0..<width {
                let pixel = (0..<colorType.channels).map { sample(x, y, $0) }
                samples.append(colorType == .palette ? [pixel[0] % paletteSize] : pixel)
            }
        }
        // The colour keyed transparent is the one of pixel (1, 0), so it occurs.
        let key = samples[1]
        var trns: [UInt8]?
        if transparency {
            switch colorType {
            case .palette: trns = paletteAlpha
            default: trns = key.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
            }
        }
        var expected: [UInt8] = []
        for pixel in samples {
            switch colorType {
            case .grey:
                let g = to8(pixel[0])
                expected += [g, g, g, transparency && pixel == key ? 0 : 255]
            case .greyAlpha:
                let g = to8(pixel[0])
                expected += [g, g, g, to8(pixel[1])]
            case .rgb:
                expected += pixel.map(to8) + [transparency && pixel == key ? 0 : 255]
            case .rgba:
                expected += pixel.map(to8)
            case .palette:
                let (r, g, b) = palette[pixel[0]]
                let alpha = transparency && pixel[0] < paletteAlpha.count ? paletteAlpha[pixel[0]] : 255
                expected += [r, g, b, alpha]
            }
        }
        let writer = RawPNGWriter(
            width: width, height: height, colorType: colorType, bitDepth: depth, interlaced: interlaced,
            samples: samples, palette: colorType == .palette ? palette : [], transparency: trns
        )
        return (writer, expected)
    }
}
