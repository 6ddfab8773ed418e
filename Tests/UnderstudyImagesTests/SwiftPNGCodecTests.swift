import Foundation
@testable import UnderstudyImages
import UnderstudyTestSupport
import XCTest

/// The PNG codec in Swift, the one format of builds without the C codecs: every PNG Pillow
/// writes decodes to the pixels Pillow reads from it, and what it writes, Pillow and pngcheck
/// read back exactly.
final class SwiftPNGCodecTests: XCTestCase {
    /// Pillow writes the same picture in every colour type and bit depth PNG has (palette with
    /// transparency, greyscale keys, 16 bits, Adam7), then prints its own RGBA reading of each.
    func testEveryColourTypeBitDepthAndInterlaceDecodesAsPillowReadsIt() throws {
        let scratch = try Scratch()
        let script = #"""
        import sys, os
        from PIL import Image
        out = sys.argv[1]
        w, h = 13, 7
        rgba = Image.new("RGBA", (w, h))
        rgba.putdata([((x * 37) % 256, (y * 53) % 256, ((x + y) * 29) % 256, 255 if (x + y) % 3 else (x * 19) % 256) for y in range(h) for x in range(w)])
        variants = {
            "rgba8": (rgba, {}),
            "rgba8-interlaced": (rgba, {"interlace": 1}),
            "rgb8": (rgba.convert("RGB"), {}),
            "rgb8-key": (rgba.convert("RGB"), {"transparency": (37, 53, 29)}),
            "grey8": (rgba.convert("L"), {}),
            "grey-alpha8": (rgba.convert("LA"), {}),
            "grey16": (rgba.convert("L").convert("I").point(lambda v: v * 257).convert("I;16"), {}),
            "grey1": (rgba.convert("1"), {}),
            "palette8-trns": (rgba.convert("P", palette=Image.ADAPTIVE, colors=40), {"transparency": 3}),
            "palette4": (rgba.convert("P", palette=Image.ADAPTIVE, colors=12), {"bits": 4}),
            "palette2-interlaced": (rgba.convert("P", palette=Image.ADAPTIVE, colors=4), {"bits": 2, "interlace": 1}),
        }
        for name, (image, options) in variants.items():
            path = os.path.join(out, name + ".png")
            image.save(path, **options)
            back = Image.open(path).convert("RGBA")
            print(name, back.tobytes().hex())
        """#
        let output = try Tools.pillow(script, [scratch.url.path])
        let lines = output.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 11, output.stdout)
        for line in lines {
            let parts = line.split(separator: " ")
            let name = String(parts[0])
            let expected = try XCTUnwrap(Data(hexString: String(parts[1])), name)
            let file = try Data(contentsOf: scratch.url.appendingPathComponent(name + ".png"))
            let decoded = try SwiftPNGCodec.decode(file, pixelLimit: RGBAImage.defaultPixelLimit)
            XCTAssertEqual(decoded.width, 13, name)
            XCTAssertEqual(decoded.height, 7, name)
            if name == "grey16" {
                // Pillow clips 16-bit samples where libpng scales them: the sample v * 257 is v.
                let grey = try SwiftPNGCodec.decode(
                    Data(contentsOf: scratch.url.appendingPathComponent("grey8.png")), pixelLimit: .max
                )
                XCTAssertEqual(decoded.pixels, grey.pixels, name)
            } else {
                XCTAssertEqual(decoded.pixels, [UInt8](expected), name)
            }
        }
    }

    /// What it writes (stored DEFLATE blocks, over 64 KB of them here) pngcheck accepts and
    /// Pillow reads to the same pixels, with alpha and without.
    func testEncodedFilesAreValidAndDecodeToTheSamePixels() throws {
        let scratch = try Scratch()
        for (name, image) in [
            ("opaque", try ImageGenerator.generate(width: 190, height: 120, pattern: .photo)),
            ("alpha", try RGBAImage(width: 3, height: 2, pixels: [255, 0, 0, 255, 0, 255, 0, 128, 0, 0, 255, 0, 9, 8, 7, 6, 1, 2, 3, 4, 200, 100, 50, 25])),
        ] {
            let png = try SwiftPNGCodec.encode(image)
            let url = scratch.url.appendingPathComponent("\(name).png")
            try png.write(to: url)
            let check = try Tools.check("pngcheck", [url.path])
            XCTAssertTrue(check.stdout.contains("OK"), check.stdout)
            let read = try Tools.pillow(
                "import sys; from PIL import Image; print(Image.open(sys.argv[1]).convert('RGBA').tobytes().hex())", [url.path]
            )
            XCTAssertEqual(Data(hexString: read.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), Data(image.pixels), name)
            XCTAssertEqual(try SwiftPNGCodec.decode(png, pixelLimit: .max), image, name)
        }
    }

    func testDamageIsAClearError() throws {
        let png = try SwiftPNGCodec.encode(try ImageGenerator.generate(width: 8, height: 8, pattern: .checkerboard))
        var badCRC = png
        badCRC[29] ^= 0xFF
        XCTAssertThrowsError(try SwiftPNGCodec.decode(badCRC, pixelLimit: .max)) { error in
            XCTAssertEqual("\(error)", "corrupt PNG: the IHDR chunk's CRC does not match its data")
        }
        XCTAssertThrowsError(try SwiftPNGCodec.decode(png.prefix(40), pixelLimit: .max)) { error in
            XCTAssertEqual("\(error)", "truncated PNG: the data ends after 40 bytes, before the image is complete")
        }
        XCTAssertThrowsError(try SwiftPNGCodec.decode(png, pixelLimit: 63)) { error in
            XCTAssertEqual("\(error)", "image of 8x8 = 64 pixels is over the limit of 63 pixels; raise pixelLimit to allow it")
        }
    }
}

/// The resampler of builds without libwebp filters as libwebp's does: on the same resizes the
/// two agree to within rounding.
final class ImageResamplerTests: XCTestCase {
    func testShrinkingAndEnlargingMatchLibwebpsRescaler() throws {
        try XCTSkipUnless(ImageKind.webp.canEncode, "libwebp's rescaler is in the SystemCodecs build only")
        let source = try ImageGenerator.generate(width: 97, height: 61, pattern: .photo)
        var translucent = source.pixels
        for index in stride(from: 3, to: translucent.count, by: 4) { translucent[index] = UInt8((index / 4) % 256) }
        let withAlpha = try RGBAImage(width: 97, height: 61, pixels: translucent)
        for image in [source, withAlpha] {
            for resize in [ImageResize(width: 40), ImageResize(width: 200), ImageResize(width: 30, height: 30, fit: .cover), ImageResize(width: 13, height: 90, fit: .fill)] {
                let plan = try resize.checkedPlan(width: image.width, height: image.height, pixelLimit: .max)
                let ours = ImageResampler.resize(image, to: plan)
                let libwebp = try image.resized(resize)
                XCTAssertEqual(ours.width, libwebp.width, "\(resize)")
                XCTAssertEqual(ours.height, libwebp.height, "\(resize)")
                // Colour of transparent pixels is meaningless: compare premultiplied values.
                let differences = stride(from: 0, to: ours.pixels.count, by: 4).flatMap { index -> [Int] in
                    let (a, b) = (Int(ours.pixels[index + 3]), Int(libwebp.pixels[index + 3]))
                    return (0..<3).map { abs(Int(ours.pixels[index + $0]) * a / 255 - Int(libwebp.pixels[index + $0]) * b / 255) } + [abs(a - b)]
                }
                let mean = Double(differences.reduce(0, +)) / Double(differences.count)
                XCTAssertLessThan(mean, 1.5, "\(resize): mean difference \(mean)")
                XCTAssertLessThanOrEqual(differences.max() ?? 0, 12, "\(resize)")
            }
        }
    }
}

/// What this build says it can do, and the error a format it cannot encode gives.
final class CodecCapabilityTests: XCTestCase {
    func testTheBuildSaysWhatItEncodesAndRefusesTheRestByName() throws {
        let image = try ImageGenerator.generate(width: 4, height: 4, pattern: .checkerboard)
        XCTAssertTrue(ImageKind.png.canEncode)
        XCTAssertTrue(ImageKind.png.canDecode)
        for kind in ImageKind.allCases where !kind.canEncode {
            let target: ImageFormat = switch kind {
            case .webp: .webpLossless
            case .jpeg: .jpeg(quality: 85)
            case .avif: .avif(quality: 60, speed: 8)
            case .heic: .heic(quality: 60)
            case .gif: .gif
            case .png: .png
            }
            XCTAssertThrowsError(try image.encoded(as: target)) { error in
                XCTAssertEqual((error as? ImageError)?.code, .unsupportedFormat)
                XCTAssertEqual(
                    "\(error)",
                    "cannot encode \(kind.name) on \(expectedCodecPlatform): its codecs \(expectedEncodableFormats); serve \(kind == .avif ? "an" : "a") \(kind.name) file made with `understudy transcode` (format original), or run `understudy serve` on a host whose codecs encode \(kind.name)"
                )
            }
        }
        // A trait's condition holds on every platform it is on (SwiftPM defines it on macOS too,
        // where the C codecs are not linked): the C codecs are linked on Linux alone.
        #if os(Linux) && SystemCodecs
        XCTAssertEqual(ImageFormat.encodableKinds, ImageKind.allCases)
        XCTAssertEqual(ImageFormat.decodableKinds, ImageKind.allCases)
        #elseif os(Linux)
        XCTAssertEqual(ImageFormat.encodableKinds, [.png])
        XCTAssertEqual(ImageFormat.decodableKinds, [.png])
        XCTAssertFalse(ImageFormat.webp(quality: 80).canEncode)
        XCTAssertTrue(ImageFormat.png.canEncode)
        #else
        // ImageIO writes PNG, JPEG and GIF on every Apple platform, and reads them.
        XCTAssertTrue(Set(ImageFormat.encodableKinds).isSuperset(of: [.png, .jpeg, .gif]), "\(ImageFormat.encodableKinds)")
        XCTAssertTrue(Set(ImageFormat.decodableKinds).isSuperset(of: [.png, .jpeg, .gif]), "\(ImageFormat.decodableKinds)")
        XCTAssertTrue(ImageFormat.png.canEncode)
        #endif
    }

    /// A 100000x100000 AVIF is refused from its `ispe` property before any decoder sees it, with
    /// the sizes in the message (libavif itself would say only "BMFF parsing failed"). The file
    /// is built here box by box, so every build checks it, with or without an AVIF codec.
    func testAnAVIFDeclaringAHugeImageIsRefusedBeforeDecoding() throws {
        func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
            let size = UInt32(8 + payload.count)
            return [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)] + Array(type.utf8) + payload
        }
        let fullBox: [UInt8] = [0, 0, 0, 0]  // version and flags
        let side: [UInt8] = [0x00, 0x01, 0x86, 0xA0]  // 100,000
        let ispe = box("ispe", fullBox + side + side)
        let avif = box("ftyp", Array("avif".utf8) + [0, 0, 0, 0] + Array("mif1avif".utf8))
            + box("meta", fullBox + box("iprp", box("ipco", ispe)))
            + box("mdat", [UInt8](repeating: 0, count: 16))
        XCTAssertEqual(ImageKind.detect(Data(avif)), .avif)
        XCTAssertThrowsError(try RGBAImage(decoding: Data(avif))) { error in
            XCTAssertEqual((error as? ImageError)?.code, .tooLarge)
            XCTAssertEqual("\(error)", "image of 100000x100000 = 10000000000 pixels is over the limit of 67108864 pixels; raise pixelLimit to allow it")
        }
    }
}

extension Data {
    init?(hexString: String) {
        var bytes: [UInt8] = []
        var iterator = hexString.makeIterator()
        while let high = iterator.next() {
            guard let low = iterator.next(), let byte = UInt8(String([high, low]), radix: 16) else { return nil }
            bytes.append(byte)
        }
        self.init(bytes)
    }
}
