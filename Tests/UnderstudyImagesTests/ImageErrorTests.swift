import Foundation
import UnderstudyImages
import XCTest

/// Bad input gives the documented error, with a message that says what was wrong.
final class ImageErrorTests: XCTestCase {
    private func assertDecodingFails(
        _ data: Data, pixelLimit: Int = RGBAImage.defaultPixelLimit,
        _ code: ImageError.Code, _ message: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertThrowsError(try RGBAImage(decoding: data, pixelLimit: pixelLimit), file: file, line: line) { error in
            guard let error = error as? ImageError else {
                return XCTFail("expected an ImageError, got \(type(of: error)): \(error)", file: file, line: line)
            }
            XCTAssertEqual(error.code, code, file: file, line: line)
            XCTAssertEqual(error.description, message, file: file, line: line)
        }
    }

    private static let pngSignature = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])

    /// A PNG with this IHDR and nothing else of substance.
    private func pngHeader(width: UInt32, height: UInt32) -> Data {
        var png = Self.pngSignature
        var ihdr = Data()
        ihdr.appendBigEndian(width)
        ihdr.appendBigEndian(height)
        ihdr.append(contentsOf: [8, 6, 0, 0, 0])
        png.appendChunk("IHDR", ihdr)
        return png
    }

    /// A lossless WebP header (RIFF, VP8L) declaring this size, with no image data after it.
    private func webpHeader(width: Int, height: Int) -> Data {
        func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) } }
        let bits = UInt32(width - 1) | UInt32(height - 1) << 14 | 1 << 28   // alpha hint, version 0
        let chunk: [UInt8] = [0x2F] + le32(bits) + [0, 0, 0, 0, 0]
        var data = Data("RIFF".utf8) + Data(le32(UInt32(4 + 8 + chunk.count))) + Data("WEBPVP8L".utf8)
        data += Data(le32(UInt32(chunk.count))) + Data(chunk)
        return data
    }

    // MARK: Truncated

    func testTruncatedPNG() throws {
        let png = try ImageGenerator.photoLike(width: 32, height: 32).pngData()
        for length in [png.count / 2, png.count - 1, 40, 24, 8, 5] {
            assertDecodingFails(png.prefix(length), .truncated,
                                "truncated PNG: the data ends after \(length) bytes, before the image is complete")
        }
    }

    func testTruncatedWebP() throws {
        let image = try ImageGenerator.photoLike(width: 32, height: 32)
        for webp in [try image.webPData(quality: 80), try image.webPLosslessData()] {
            for length in [webp.count / 2, 30, 11] {
                assertDecodingFails(webp.prefix(length), .truncated,
                                    "truncated WebP: the data ends after \(length) bytes, before the image is complete")
            }
        }
    }

    // MARK: Not an image

    func testRandomBytesAreNotAnImage() {
        var state: UInt32 = 12345
        let random = Data((0..<100).map { _ -> UInt8 in
            state = state &* 1_103_515_245 &+ 12345
            return UInt8(state >> 24)
        })
        let prefix = random.prefix(8).map { String(format: "%02X", $0) }.joined(separator: " ")
        assertDecodingFails(random, .notAnImage,
                            "not an image: the data (100 bytes) starts with \(prefix), which is not the signature of PNG, WebP, JPEG, GIF, AVIF or HEIC")
    }

    func testWrongMagic() {
        assertDecodingFails(Data("<!DOCTYPE html><html>".utf8), .notAnImage,
                            "not an image: the data (21 bytes) starts with 3C 21 44 4F 43 54 59 50, which is not the signature of PNG, WebP, JPEG, GIF, AVIF or HEIC")
        assertDecodingFails(Data("RIFF\0\0\0\0WAVEfmt ".utf8), .notAnImage,
                            "not an image: the data (16 bytes) starts with 52 49 46 46 00 00 00 00, which is not the signature of PNG, WebP, JPEG, GIF, AVIF or HEIC")
        assertDecodingFails(Data(), .notAnImage, "not an image: the data is empty")
    }

    func testAGIFHeadAndAJPEGHeadAreTruncated() {
        assertDecodingFails(Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10]), .truncated,
                            "truncated JPEG: the data ends after 6 bytes, before the image is complete")
        assertDecodingFails(Data("GIF89a\u{1}\0\u{1}\0".utf8), .truncated,
                            "truncated GIF: the data ends after 10 bytes, before the image is complete (giflib: No screen descriptor detected, 104)")
    }

    // MARK: Corrupt

    func testCorruptPNGCarriesLibpngsMessage() {
        let writer = RawPNGWriter(width: 4, height: 2, colorType: .rgb, bitDepth: 8, samples: Array(repeating: [1, 2, 3], count: 8))
        var badCRC = writer.encode()
        badCRC[29] ^= 0xFF   // the IHDR CRC
        assertDecodingFails(badCRC, .corrupt, "corrupt PNG: libpng: IHDR: CRC error")

        var badBlock = pngHeader(width: 4, height: 2)
        badBlock.appendChunk("IDAT", Data([0x78, 0x01, 0x07, 0x00]))  // a final block of the reserved type 3
        badBlock.appendChunk("IEND", Data())
        assertDecodingFails(badBlock, .corrupt, "corrupt PNG: libpng: IDAT: invalid block type")

        let garbage = Self.pngSignature + Data("garbage garbage garbage".utf8)
        assertDecodingFails(garbage, .corrupt, "corrupt PNG: the first chunk is 'age ', expected IHDR")
    }

    func testCorruptWebPCarriesLibwebpsCode() throws {
        var webp = try ImageGenerator.photoLike(width: 32, height: 32).webPLosslessData()
        for index in 30..<min(200, webp.count) { webp[index] = 0x55 }
        assertDecodingFails(webp, .corrupt, "corrupt WebP: libwebp: VP8_STATUS_BITSTREAM_ERROR (3)")
    }

    // MARK: Sizes

    func testAbsurdDimensionsAreRefusedFromTheHeader() {
        // 10^10 pixels would be 40 GB of RGBA: refused before any allocation.
        assertDecodingFails(pngHeader(width: 100_000, height: 100_000), .tooLarge,
                            "image of 100000x100000 = 10000000000 pixels is over the limit of 67108864 pixels; raise pixelLimit to allow it")
        assertDecodingFails(pngHeader(width: 0x7FFF_FFFF, height: 0x7FFF_FFFF), .tooLarge,
                            "image of 2147483647x2147483647 = 4611686014132420609 pixels is over the limit of 67108864 pixels; raise pixelLimit to allow it")
        assertDecodingFails(webpHeader(width: 16383, height: 16383), .tooLarge,
                            "image of 16383x16383 = 268402689 pixels is over the limit of 67108864 pixels; raise pixelLimit to allow it")
        assertDecodingFails(pngHeader(width: 0, height: 10), .invalidDimensions,
                            "invalid image size 0x10: width and height must be at least 1")
    }

    func testPixelLimitIsInclusive() throws {
        let png = try ImageGenerator.generate(width: 64, height: 64, pattern: .gradient).pngData()
        assertDecodingFails(png, pixelLimit: 4095, .tooLarge,
                            "image of 64x64 = 4096 pixels is over the limit of 4095 pixels; raise pixelLimit to allow it")
        XCTAssertEqual(try RGBAImage(decoding: png, pixelLimit: 4096).width, 64)
        let webp = try ImageGenerator.generate(width: 64, height: 64, pattern: .gradient).webPLosslessData()
        assertDecodingFails(webp, pixelLimit: 4095, .tooLarge,
                            "image of 64x64 = 4096 pixels is over the limit of 4095 pixels; raise pixelLimit to allow it")
    }

    func testPixelBufferOfTheWrongSize() {
        XCTAssertThrowsError(try RGBAImage(width: 2, height: 2, pixels: [0, 0, 0])) { error in
            XCTAssertEqual("\(error)", "an RGBA image of 2x2 needs 16 bytes of pixels, got 3")
        }
    }

    func testUnreadableFile() async {
        let transcoder = ImageTranscoder()
        do {
            _ = try await transcoder.render(.file(URL(fileURLWithPath: "/nonexistent/cat.webp")), as: .png)
            XCTFail("expected an error")
        } catch {
            XCTAssertEqual((error as? ImageError)?.code, .unreadableFile)
            XCTAssertEqual("\(error)", "cannot read image file /nonexistent/cat.webp: no such file")
        }
    }
}
