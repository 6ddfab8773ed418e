import Foundation
import UnderstudyImages
import XCTest

final class ImageGeneratorTests: XCTestCase {
    private func pixel(_ image: RGBAImage, _ x: Int, _ y: Int) -> [UInt8] {
        let index = (y * image.width + x) * 4
        return Array(image.pixels[index..<index + 4])
    }

    func testCheckerboardHasEightSquaresAcrossTheShorterSide() throws {
        let board = try ImageGenerator.generate(width: 64, height: 32, pattern: .checkerboard)
        XCTAssertEqual([board.width, board.height], [64, 32])
        let white: [UInt8] = [255, 255, 255, 255]
        let black: [UInt8] = [0, 0, 0, 255]
        XCTAssertEqual(pixel(board, 0, 0), white)
        XCTAssertEqual(pixel(board, 3, 3), white)      // squares are 32 / 8 = 4 pixels
        XCTAssertEqual(pixel(board, 4, 0), black)
        XCTAssertEqual(pixel(board, 0, 4), black)
        XCTAssertEqual(pixel(board, 4, 4), white)
        XCTAssertEqual(pixel(board, 63, 31), white)    // (15 + 7) is even
    }

    func testGradientRunsCornerToCorner() throws {
        let gradient = try ImageGenerator.generate(width: 256, height: 3, pattern: .gradient)
        XCTAssertEqual(pixel(gradient, 0, 0), [0, 0, 128, 255])
        XCTAssertEqual(pixel(gradient, 255, 0), [255, 0, 128, 255])
        XCTAssertEqual(pixel(gradient, 100, 1), [100, 128, 128, 255])
        XCTAssertEqual(pixel(gradient, 255, 2), [255, 255, 128, 255])
    }

    func testSolidColour() throws {
        let color = try RGBAColor(parsing: "#12345678")
        let solid = try ImageGenerator.generate(width: 3, height: 2, pattern: .solid(color))
        XCTAssertEqual(solid.pixels, Array(repeatElement([0x12, 0x34, 0x56, 0x78] as [UInt8], count: 6).joined()))
        // And the pattern survives encoding.
        XCTAssertEqual(try RGBAImage(decoding: solid.pngData()), solid)
    }

    func testColourParsing() throws {
        XCTAssertEqual(try RGBAColor(parsing: "#ff8800"), RGBAColor(red: 255, green: 136, blue: 0))
        XCTAssertEqual(try RGBAColor(parsing: "#FF880080"), RGBAColor(red: 255, green: 136, blue: 0, alpha: 128))
        XCTAssertEqual(try RGBAColor(parsing: " Red "), .red)
        XCTAssertEqual(try RGBAColor(parsing: "green"), RGBAColor(red: 0, green: 128, blue: 0))
        XCTAssertEqual(try RGBAColor(parsing: "blue"), RGBAColor(red: 0, green: 0, blue: 255))
        XCTAssertEqual(try RGBAColor(parsing: "grey"), try RGBAColor(parsing: "gray"))
        XCTAssertEqual(try RGBAColor(parsing: "transparent").alpha, 0)
        XCTAssertEqual(try RGBAColor(parsing: "white"), RGBAColor(red: 255, green: 255, blue: 255))
        XCTAssertEqual(try RGBAColor(parsing: "black"), RGBAColor(red: 0, green: 0, blue: 0))
        XCTAssertEqual("\(RGBAColor.red)", "#ff0000ff")
        for bad in ["#ff88", "#gg0000", "ff8800", "purple", "#ff880080ff", ""] {
            XCTAssertThrowsError(try RGBAColor(parsing: bad), bad) { error in
                XCTAssertEqual(
                    "\(error)",
                    "invalid colour '\(bad)': expected #rrggbb, #rrggbbaa or one of black, blue, gray, green, grey, red, transparent, white"
                )
            }
        }
    }

    func testGenerationOverTheLimitAllocatesNothingAndSaysSo() {
        XCTAssertThrowsError(try ImageGenerator.generate(width: 100_000, height: 100_000, pattern: .gradient)) { error in
            XCTAssertEqual((error as? ImageError)?.code, .tooLarge)
            XCTAssertEqual("\(error)", "image of 100000x100000 = 10000000000 pixels is over the limit of 67108864 pixels; raise pixelLimit to allow it")
        }
        XCTAssertThrowsError(try ImageGenerator.generate(width: Int.max, height: 3, pattern: .checkerboard)) { error in
            XCTAssertEqual((error as? ImageError)?.code, .tooLarge)
        }
        XCTAssertThrowsError(try ImageGenerator.generate(width: 11, height: 10, pattern: .checkerboard, pixelLimit: 100)) { error in
            XCTAssertEqual("\(error)", "image of 11x10 = 110 pixels is over the limit of 100 pixels; raise pixelLimit to allow it")
        }
        XCTAssertThrowsError(try ImageGenerator.generate(width: -1, height: 10, pattern: .gradient)) { error in
            XCTAssertEqual("\(error)", "invalid image size -1x10: width and height must be at least 1")
        }
        XCTAssertThrowsError(try ImageGenerator.photoLike(width: 0, height: 0)) { error in
            XCTAssertEqual((error as? ImageError)?.code, .invalidDimensions)
        }
    }

    func testTheDefaultLimitIs64Mebipixels() throws {
        XCTAssertEqual(RGBAImage.defaultPixelLimit, 64 * 1024 * 1024)
        XCTAssertThrowsError(try ImageGenerator.generate(width: 8193, height: 8192, pattern: .solid(.black)))
    }

    func testPhotoLikeIsDeterministicAndTextured() throws {
        let a = try ImageGenerator.photoLike(width: 50, height: 40, seed: 9)
        XCTAssertEqual(a, try ImageGenerator.photoLike(width: 50, height: 40, seed: 9))
        XCTAssertNotEqual(a, try ImageGenerator.photoLike(width: 50, height: 40, seed: 10))
        XCTAssertTrue(a.isOpaque)
        // Many distinct colours: no flat pattern.
        let colours = Set(stride(from: 0, to: a.pixels.count, by: 4).map { Array(a.pixels[$0..<$0 + 3]) })
        XCTAssertGreaterThan(colours.count, 1000)
        let translucent = try ImageGenerator.photoLike(width: 50, height: 40, seed: 9, opaque: false)
        XCTAssertEqual(pixel(translucent, 0, 5)[3], 255)
        XCTAssertEqual(pixel(translucent, 49, 5)[3], 0)
    }
}
