import Foundation
import UnderstudyImages
import XCTest

/// GIF through giflib: what Pillow reads from what we write (palette, transparency, frames,
/// durations, loop), and how we composite the frames Pillow writes.
final class GIFTests: XCTestCase {
    private var scratch: Scratch!

    override func setUpWithError() throws { scratch = try Scratch() }
    override func tearDown() { scratch = nil }

    /// Pillow's frames of a GIF as RGBA, one hex string each, after a header line.
    private let pillowFrames = """
        import sys
        from PIL import Image
        im = Image.open(sys.argv[1])
        print(im.format, im.size[0], im.size[1], getattr(im, 'n_frames', 1), im.info.get('loop'))
        for i in range(getattr(im, 'n_frames', 1)):
            im.seek(i)
            print(im.info.get('duration'), im.convert('RGBA').tobytes().hex())
        """

    private func pillow(_ data: Data) throws -> (header: String, frames: [(duration: String, pixels: [UInt8])]) {
        let path = try scratch.write(data, UUID().uuidString + ".gif")
        let lines = try Tools.pillow(pillowFrames, [path]).stdout.split(separator: "\n").map(String.init)
        let frames = lines.dropFirst().map { line in
            let parts = line.split(separator: " ")
            return (String(parts[0]), Self.bytes(hex: String(parts[1])))
        }
        return (lines[0], frames)
    }

    static func bytes(hex: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }

    func testFewColoursAreKeptExactlyAndTransparencyWhereAlphaIsZero() throws {
        var pixels = try ImageGenerator.generate(width: 40, height: 30, pattern: .checkerboard).pixels
        for pixel in stride(from: 0, to: 40 * 30, by: 7) { pixels[pixel * 4 + 3] = 0 }
        let image = try RGBAImage(width: 40, height: 30, pixels: pixels)
        let gif = try image.gifData()
        XCTAssertEqual(ImageKind.detect(gif), .gif)
        XCTAssertEqual(String(decoding: gif.prefix(6), as: UTF8.self), "GIF89a")
        let read = try pillow(gif)
        XCTAssertEqual(read.header, "GIF 40 30 1 None")
        // Pillow gives transparent pixels as (0, 0, 0, 0); the rest exactly.
        let expected = stride(from: 0, to: pixels.count, by: 4).flatMap { index in
            pixels[index + 3] == 0 ? [0, 0, 0, 0] : Array(pixels[index..<index + 4])
        }
        XCTAssertNil(Pixels.firstDifference(read.frames[0].pixels, expected, width: 40))
        XCTAssertNil(Pixels.firstDifference(try RGBAImage(decoding: gif).pixels, expected, width: 40), "our decoder too")
    }

    func testPhotosGetAMedianCutPaletteAboveAPSNRFloor() throws {
        let image = try ImageGenerator.generate(width: 240, height: 160, pattern: .photo)
        let gif = try image.gifData()
        let read = try pillow(gif)
        XCTAssertEqual(read.header, "GIF 240 160 1 None")
        XCTAssertGreaterThanOrEqual(Pixels.psnr(read.frames[0].pixels, image.pixels), 30, "256 colours chosen from the photo")
        XCTAssertEqual(try RGBAImage(decoding: gif).pixels, read.frames[0].pixels, "our decoder gives Pillow's pixels")
    }

    func testAnimatedGIFHasItsFramesDurationsAndLoopsForEver() throws {
        let source = ImageSource.animated(width: 64, height: 48, pattern: .checkerboard, frames: 8, frameDuration: .milliseconds(120))
        let gif = try ImageTranscoder().renderSync(source, as: .gif)
        let read = try pillow(gif)
        XCTAssertEqual(read.header, "GIF 64 48 8 0", "8 frames, NETSCAPE2.0 loop 0 (for ever)")
        XCTAssertEqual(read.frames.map(\.duration), Array(repeating: "120", count: 8))
        let expected = try ImageGenerator.frames(width: 64, height: 48, pattern: .checkerboard, count: 8)
        for (index, frame) in read.frames.enumerated() {
            XCTAssertEqual(frame.pixels, expected[index].pixels, "frame \(index): two colours kept exactly")
        }
        XCTAssertEqual(try RGBAImage.frames(decoding: gif), expected)
    }

    func testFramesPillowWritesAreCompositedWithDisposalAndTransparency() throws {
        // Three 32x32 frames: red, then a green 8x8 square at (4, 4) kept (disposal 1), then a
        // blue 8x8 square at (20, 20) restoring to background (2) with a transparent hole; the
        // fourth frame after disposal 2 shows what is left.
        let path = scratch.path("pillow.gif")
        try Tools.pillow("""
            import sys
            from PIL import Image
            red = Image.new('RGB', (32, 32), (255, 0, 0))
            green = red.copy(); green.paste((0, 255, 0), (4, 4, 12, 12))
            blue = green.copy(); blue.paste((0, 0, 255), (20, 20, 28, 28)); blue.putpixel((21, 21), (1, 2, 3))
            last = green.copy(); last.paste((255, 255, 0), (0, 0, 2, 2))
            frames = [f.convert('P', palette=Image.Palette.ADAPTIVE, colors=8) for f in (red, green, blue, last)]
            frames[0].save(sys.argv[1], save_all=True, append_images=frames[1:], duration=[50, 60, 70, 80], loop=3, disposal=[1, 1, 2, 1], optimize=False)
            """, [path])
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let ours = try RGBAImage.frames(decoding: data)
        let read = try pillow(data)
        XCTAssertEqual(read.header, "GIF 32 32 4 3")
        XCTAssertEqual(ours.count, 4)
        for (index, frame) in ours.enumerated() {
            XCTAssertNil(Pixels.firstDifference(frame.pixels, read.frames[index].pixels, width: 32), "frame \(index)")
        }
    }

    func testDamagedAndAbsurdGIFsAreDocumentedErrors() throws {
        let gif = try ImageGenerator.generate(width: 64, height: 64, pattern: .photo).gifData()
        XCTAssertThrowsError(try RGBAImage(decoding: gif.prefix(gif.count / 2))) { error in
            XCTAssertEqual((error as? ImageError)?.code, .truncated, "\(error)")
        }
        XCTAssertThrowsError(try RGBAImage(decoding: gif, pixelLimit: 4000)) { error in
            XCTAssertEqual("\(error)", "image of 64x64 = 4096 pixels is over the limit of 4000 pixels; raise pixelLimit to allow it")
        }
        // A logical screen of 65535 x 65535: refused from the header, nothing allocated.
        var bytes = [UInt8](gif)
        bytes[6] = 0xFF; bytes[7] = 0xFF; bytes[8] = 0xFF; bytes[9] = 0xFF
        XCTAssertThrowsError(try RGBAImage(decoding: Data(bytes))) { error in
            XCTAssertEqual("\(error)", "image of 65535x65535 = 4294836225 pixels is over the limit of 67108864 pixels; raise pixelLimit to allow it")
        }
        // An image descriptor larger than the limit, on a small screen.
        var wide = [UInt8]("GIF89a".utf8) + [16, 0, 16, 0, 0x80, 0, 0] + [0, 0, 0, 255, 255, 255]
        wide += [0x2C, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0, 2, 2, 0x4C, 0x01, 0, 0x3B]
        XCTAssertThrowsError(try RGBAImage(decoding: Data(wide))) { error in
            XCTAssertEqual((error as? ImageError)?.code, .tooLarge, "\(error)")
        }
    }
}
