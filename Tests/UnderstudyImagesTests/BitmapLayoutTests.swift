import Foundation
@testable import UnderstudyImages
import XCTest

/// The step that turns ImageIO's decoded samples into straight RGBA on Apple platforms, run
/// here on the samples ImageIO holds for a PNG (straight alpha, 16-bit and grey+alpha kept as
/// stored), against what this build's PNG decoder (libpng, or the Swift one) makes of the same
/// file: translucent pixels keep their colour, with no colour management.
final class BitmapLayoutTests: XCTestCase {
    /// Translucent pixels whose colour a premultiplied context loses: alpha 1, 2, 128, 254, 0.
    private let straight: [[Int]] = [
        [200, 40, 90, 1], [17, 250, 3, 2], [255, 128, 0, 128], [9, 99, 199, 254], [123, 45, 67, 0], [255, 255, 255, 255],
    ]

    private func rows(_ samples: [[Int]], width: Int, bytes: Int, padding: Int, littleEndian: Bool = false) -> [UInt8] {
        var out = [UInt8]()
        for (index, pixel) in samples.enumerated() {
            for value in pixel {
                if bytes == 1 {
                    out.append(UInt8(value))
                } else {
                    out += littleEndian ? [UInt8(value & 0xFF), UInt8(value >> 8)] : [UInt8(value >> 8), UInt8(value & 0xFF)]
                }
            }
            if (index + 1) % width == 0 { out += [UInt8](repeating: 0xEE, count: padding) }
        }
        return out
    }

    private func decodedByPNG(_ samples: [[Int]], width: Int, colorType: RawPNGWriter.ColorType, depth: Int) throws -> RGBAImage {
        let png = RawPNGWriter(width: width, height: samples.count / width, colorType: colorType, bitDepth: depth, samples: samples).encode()
        return try RGBAImage(decoding: png)
    }

    func testStraight8BitRGBAWithPaddedRowsIsWhatThePNGDecoderGives() throws {
        let expected = try decodedByPNG(straight, width: 3, colorType: .rgba, depth: 8)
        let layout = BitmapLayout(colour: .rgb, alpha: .last, bitsPerComponent: 8, bytesPerRow: 3 * 4 + 8, littleEndian: false)
        let bytes = rows(straight, width: 3, bytes: 1, padding: 8)
        let converted = try bytes.withUnsafeBytes { try layout.straightRGBA($0, width: 3, height: 2) }
        XCTAssertEqual(converted.pixels, expected.pixels)
        XCTAssertEqual(Array(converted.pixels[0..<4]), [200, 40, 90, 1], "alpha 1 keeps its colour")
    }

    func testUnpaddedStraightRGBAIsCopiedAsItIs() throws {
        let layout = BitmapLayout(colour: .rgb, alpha: .last, bitsPerComponent: 8, bytesPerRow: 12, littleEndian: false)
        XCTAssertTrue(layout.isRGBA8(width: 3))
        let bytes = rows(straight, width: 3, bytes: 1, padding: 0)
        XCTAssertEqual(try bytes.withUnsafeBytes { try layout.straightRGBA($0, width: 3, height: 2) }.pixels, bytes)
    }

    func testSixteenBitSamplesRoundAsLibpngScalesThem() throws {
        let wide = straight.map { pixel in pixel.map { $0 * 257 + ($0 % 3) * 97 } }
        let expected = try decodedByPNG(wide, width: 3, colorType: .rgba, depth: 16)
        for littleEndian in [false, true] {
            let layout = BitmapLayout(colour: .rgb, alpha: .last, bitsPerComponent: 16, bytesPerRow: 3 * 8, littleEndian: littleEndian)
            let bytes = rows(wide, width: 3, bytes: 2, padding: 0, littleEndian: littleEndian)
            XCTAssertEqual(try bytes.withUnsafeBytes { try layout.straightRGBA($0, width: 3, height: 2) }.pixels, expected.pixels, "little-endian: \(littleEndian)")
        }
    }

    func testGreyWithAlphaSpreadsTheGreyAndKeepsTheAlpha() throws {
        let grey = [[10, 1], [128, 127], [255, 0], [77, 255]]
        let expected = try decodedByPNG(grey, width: 2, colorType: .greyAlpha, depth: 8)
        let layout = BitmapLayout(colour: .grey, alpha: .last, bitsPerComponent: 8, bytesPerRow: 4, littleEndian: false)
        let converted = try rows(grey, width: 2, bytes: 1, padding: 0).withUnsafeBytes { try layout.straightRGBA($0, width: 2, height: 2) }
        XCTAssertEqual(converted.pixels, expected.pixels)
        XCTAssertEqual(Array(converted.pixels[0..<4]), [10, 10, 10, 1])
    }

    func testPremultipliedBGRAIsDividedByItsAlpha() throws {
        // What a premultiplied-first, 32-bit little-endian bitmap holds: B, G, R, A in memory.
        let opaqueEnough = straight.filter { $0[3] >= 128 }
        let premultiplied = opaqueEnough.map { pixel -> [Int] in
            let a = pixel[3]
            let (r, g, b) = ((pixel[0] * a + 127) / 255, (pixel[1] * a + 127) / 255, (pixel[2] * a + 127) / 255)
            return [b, g, r, a]
        }
        let layout = BitmapLayout(colour: .rgb, alpha: .premultipliedFirst, bitsPerComponent: 8, bytesPerRow: 4 * opaqueEnough.count, littleEndian: true)
        let converted = try rows(premultiplied, width: opaqueEnough.count, bytes: 1, padding: 0)
            .withUnsafeBytes { try layout.straightRGBA($0, width: opaqueEnough.count, height: 1) }
        for (index, pixel) in opaqueEnough.enumerated() {
            let got = Array(converted.pixels[index * 4..<index * 4 + 4]).map(Int.init)
            XCTAssertEqual(got[3], pixel[3])
            for channel in 0..<3 {
                XCTAssertLessThanOrEqual(abs(got[channel] - pixel[channel]), 1, "pixel \(index): \(got) against \(pixel)")
            }
        }
    }

    func testSkippedAlphaIsOpaqueAndAShortBufferIsAnError() throws {
        let layout = BitmapLayout(colour: .rgb, alpha: .skipLast, bitsPerComponent: 8, bytesPerRow: 8, littleEndian: false)
        let converted = try [1, 2, 3, 0, 4, 5, 6, 9].map(UInt8.init).withUnsafeBytes { try layout.straightRGBA($0, width: 2, height: 1) }
        XCTAssertEqual(converted.pixels, [1, 2, 3, 255, 4, 5, 6, 255])
        XCTAssertThrowsError(try [UInt8](repeating: 0, count: 7).withUnsafeBytes { try layout.straightRGBA($0, width: 2, height: 1) }) { error in
            XCTAssertEqual("\(error)", "cannot read a 2x1 bitmap of 4 8-bit components in 7 bytes, 8 a row")
        }
    }
}
