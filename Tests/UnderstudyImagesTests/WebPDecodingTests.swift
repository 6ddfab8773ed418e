import Foundation
import UnderstudyImages
import XCTest

/// WebP written by cwebp, img2webp and Pillow (independent encoders) decodes to the right RGBA.
final class WebPDecodingTests: XCTestCase {
    /// A PNG written by Pillow from raw pixels, as input for the WebP command-line tools.
    private func pillowPNG(_ image: RGBAImage, in scratch: Scratch, name: String) throws -> String {
        let raw = try scratch.write(Data(image.pixels), "\(name).rgba")
        let png = scratch.path("\(name).png")
        try Tools.pillow(
            "import sys; from PIL import Image; Image.frombytes('RGBA', (int(sys.argv[1]), int(sys.argv[2])), open(sys.argv[3], 'rb').read()).save(sys.argv[4])",
            ["\(image.width)", "\(image.height)", raw, png]
        )
        return png
    }

    func testCwebpLosslessDecodesExactly() throws {
        let scratch = try Scratch()
        let source = try ImageGenerator.photoLike(width: 96, height: 64, seed: 3, opaque: false)
        let png = try pillowPNG(source, in: scratch, name: "source")
        try Tools.check("cwebp", ["-quiet", "-lossless", "-exact", png, "-o", scratch.path("out.webp")])
        let image = try RGBAImage(decoding: scratch.read("out.webp"))
        XCTAssertEqual(image.width, 96)
        XCTAssertEqual(image.height, 64)
        XCTAssertNil(Pixels.firstDifference(image.pixels, source.pixels, width: 96))
    }

    func testCwebpLossyDecodesCloseToTheSource() throws {
        let scratch = try Scratch()
        let source = try ImageGenerator.photoLike(width: 128, height: 96, seed: 4)
        let png = try pillowPNG(source, in: scratch, name: "source")
        try Tools.check("cwebp", ["-quiet", "-q", "90", png, "-o", scratch.path("out.webp")])
        let image = try RGBAImage(decoding: scratch.read("out.webp"))
        XCTAssertEqual([image.width, image.height], [128, 96])
        XCTAssertGreaterThanOrEqual(Pixels.psnr(image.pixels, source.pixels), 30)
        XCTAssertTrue(image.isOpaque)
    }

    func testCwebpLossyWithAlphaKeepsTheAlphaPlane() throws {
        let scratch = try Scratch()
        let source = try ImageGenerator.photoLike(width: 80, height: 80, seed: 5, opaque: false)
        let png = try pillowPNG(source, in: scratch, name: "source")
        try Tools.check("cwebp", ["-quiet", "-q", "90", "-alpha_q", "100", "-exact", png, "-o", scratch.path("out.webp")])
        let image = try RGBAImage(decoding: scratch.read("out.webp"))
        XCTAssertEqual(Pixels.alpha(image.pixels), Pixels.alpha(source.pixels))
        XCTAssertGreaterThanOrEqual(Pixels.psnr(image.pixels, source.pixels), 30)
    }

    func testFirstFrameOfAnImg2webpAnimation() throws {
        let scratch = try Scratch()
        let first = try ImageGenerator.photoLike(width: 40, height: 30, seed: 6)
        let second = try ImageGenerator.generate(width: 40, height: 30, pattern: .checkerboard)
        let firstPNG = try pillowPNG(first, in: scratch, name: "first")
        let secondPNG = try pillowPNG(second, in: scratch, name: "second")
        // img2webp is lossless unless told otherwise.
        try Tools.check("img2webp", ["-loop", "0", "-d", "100", firstPNG, secondPNG, "-o", scratch.path("anim.webp")])
        let animation = try scratch.read("anim.webp")
        XCTAssertTrue(animation.range(of: Data("ANIM".utf8)) != nil, "img2webp did not write an animation")
        let image = try RGBAImage(decoding: animation)
        XCTAssertEqual([image.width, image.height], [40, 30])
        XCTAssertNil(Pixels.firstDifference(image.pixels, first.pixels, width: 40))
    }

    func testFirstFrameOfAPillowAnimationWithAlpha() throws {
        let scratch = try Scratch()
        let script = """
        import sys
        from PIL import Image
        frames = [Image.new('RGBA', (24, 16), c) for c in [(255, 0, 0, 128), (0, 0, 255, 255), (0, 255, 0, 255)]]
        frames[0].save(sys.argv[1], save_all=True, append_images=frames[1:], lossless=True, duration=50, loop=0)
        """
        try Tools.pillow(script, [scratch.path("anim.webp")])
        let animation = try scratch.read("anim.webp")
        XCTAssertTrue(animation.range(of: Data("ANIM".utf8)) != nil, "Pillow did not write an animation")
        let image = try RGBAImage(decoding: animation)
        XCTAssertEqual([image.width, image.height], [24, 16])
        let red: [UInt8] = [255, 0, 0, 128]
        XCTAssertEqual(image.pixels, Array(repeatElement(red, count: 24 * 16).joined()))
    }
}
