import Foundation
import UnderstudyImages
import XCTest

/// Animated WebP from `.animated` sources: what Pillow and webpmux find in it, and its first
/// frame for still formats.
final class AnimationTests: XCTestCase {
    private var scratch: Scratch!

    override func setUpWithError() throws { scratch = try Scratch() }
    override func tearDown() { scratch = nil }

    private let source = ImageSource.animated(width: 64, height: 48, pattern: .checkerboard, frames: 8, frameDuration: .milliseconds(120))

    func testAnimatedWebPHasItsFramesDurationsAndLoopsForEver() throws {
        let transcoder = ImageTranscoder()
        for target in [ImageFormat.webp(quality: 90), .webpLossless] {
            let webp = try transcoder.renderSync(source, as: target)
            XCTAssertEqual(ImageKind.detect(webp), .webp)
            let path = try scratch.write(webp, "anim.webp")
            let script = """
                import sys
                from PIL import Image, ImageChops
                im = Image.open(sys.argv[1])
                print(im.format, im.size[0], im.size[1], im.is_animated, im.n_frames, im.info.get('loop'))
                frames = []
                for i in range(im.n_frames):
                    im.seek(i)
                    frames.append(im.convert('RGB'))
                    print(im.info['duration'])
                distinct = len({f.tobytes() for f in frames})
                print('distinct', distinct)
                """
            let lines = try Tools.pillow(script, [path]).stdout.split(separator: "\n").map(String.init)
            XCTAssertEqual(lines.first, "WEBP 64 48 True 8 0", "\(target)")
            XCTAssertEqual(Array(lines[1...8]), Array(repeating: "120", count: 8), "\(target): each frame 120 ms")
            XCTAssertEqual(lines.last, "distinct 8", "\(target): every frame differs")

            let info = try Tools.check("webpmux", ["-info", path]).stdout
            XCTAssertTrue(info.contains("Canvas size: 64 x 48"), info)
            XCTAssertTrue(info.contains("Features present: animation"), info)
            XCTAssertTrue(info.contains("Loop Count : 0"), info)
            XCTAssertTrue(info.contains("Number of frames: 8"), info)
        }
    }

    func testFramesDifferByTheMovingBandAndPNGIsTheFirstFrame() throws {
        let frames = try ImageGenerator.frames(width: 64, height: 48, pattern: .checkerboard, count: 8)
        let board = try ImageGenerator.generate(width: 64, height: 48, pattern: .checkerboard)
        XCTAssertEqual(frames.count, 8)
        for (index, frame) in frames.enumerated() {
            // Columns 8i ..< 8i+8 are inverted, the rest is the board.
            for x in 0..<64 {
                let offset = (10 * 64 + x) * 4
                let inverted = (index * 8..<index * 8 + 8).contains(x)
                XCTAssertEqual(frame.pixels[offset], inverted ? 255 - board.pixels[offset] : board.pixels[offset], "frame \(index) x \(x)")
            }
        }
        let png = try ImageTranscoder().renderSync(source, as: .png)
        XCTAssertEqual(try RGBAImage(decoding: png), frames[0])
        let jpeg = try ImageTranscoder().renderSync(source, as: .jpeg(quality: 90))
        XCTAssertEqual(ImageKind.detect(jpeg), .jpeg)
        // Our decoder reads an animation's first frame too.
        let webp = try ImageTranscoder().renderSync(source, as: .webpLossless)
        XCTAssertEqual(try RGBAImage(decoding: webp), frames[0])
    }

    func testTooManyFramesIsRefusedBeforeDrawing() {
        let transcoder = ImageTranscoder(pixelLimit: 100_000)
        XCTAssertThrowsError(try transcoder.renderSync(
            .animated(width: 100, height: 100, pattern: .gradient, frames: 11, frameDuration: .milliseconds(50)), as: .webpLossless
        )) { error in
            XCTAssertEqual((error as? ImageError)?.code, .tooLarge)
            XCTAssertEqual("\(error)", "an animation of 11 frames of 100x100 is over the limit of 100000 pixels in all; use fewer or smaller frames")
        }
        XCTAssertEqual(transcoder.statistics.generations, 0)
    }
}
