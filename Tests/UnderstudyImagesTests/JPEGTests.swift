import Foundation
import UnderstudyImages
import XCTest

/// JPEG through libjpeg-turbo: decoding what cjpeg writes (baseline, progressive, greyscale)
/// to exactly the pixels djpeg gives, and encoding what Pillow and djpeg read back.
final class JPEGTests: XCTestCase {
    private var scratch: Scratch!

    override func setUpWithError() throws { scratch = try Scratch() }
    override func tearDown() { scratch = nil }

    /// `cjpeg ARGS in.ppm` of a photo-like image; returns the JPEG's path.
    private func cjpeg(_ image: RGBAImage, _ arguments: [String], name: String) throws -> String {
        let ppm = try scratch.write(PNM.ppm(image), "\(name).ppm")
        let out = scratch.path("\(name).jpg")
        try Tools.check("cjpeg", arguments + ["-outfile", out, ppm])
        return out
    }

    /// djpeg's decoding of a JPEG file, as RGBA.
    private func djpeg(_ path: String) throws -> RGBAImage {
        let out = scratch.path(UUID().uuidString + ".pnm")
        try Tools.check("djpeg", ["-pnm", "-outfile", out, path])
        return try PNM.decode(Data(contentsOf: URL(fileURLWithPath: out)))
    }

    func testBaselineProgressiveAndGreyscaleDecodeToDjpegsPixels() throws {
        let image = try ImageGenerator.photoLike(width: 123, height: 77, seed: 5)
        let cases: [(String, [String], Bool)] = [
            ("baseline", ["-quality", "90"], false),
            ("progressive", ["-quality", "75", "-progressive"], true),
            ("grey", ["-quality", "85", "-grayscale"], false),
            ("444", ["-quality", "95", "-sample", "1x1"], false),
        ]
        for (name, arguments, progressive) in cases {
            let path = try cjpeg(image, arguments, name: name)
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            XCTAssertEqual(ImageKind.detect(data), .jpeg, name)
            let ours = try RGBAImage(decoding: data)
            XCTAssertEqual(ours.width, 123, name)
            XCTAssertEqual(ours.height, 77, name)
            // The same library with the same settings as djpeg's defaults: the same pixels.
            XCTAssertEqual(ours, try djpeg(path), name)
            let pillow = try Tools.pillow(
                "import sys; from PIL import Image; im = Image.open(sys.argv[1]); print(im.format, im.mode, im.info.get('progressive', 0))",
                [path]
            )
            XCTAssertEqual(pillow.stdout.split(separator: " ").last?.trimmingCharacters(in: .whitespacesAndNewlines), progressive ? "1" : "0", name)
            if name == "grey" {
                let pixels = ours.pixels
                let grey = stride(from: 0, to: pixels.count, by: 4).allSatisfy { (index: Int) -> Bool in
                    let red = pixels[index]
                    return red == pixels[index + 1] && red == pixels[index + 2] && pixels[index + 3] == 255
                }
                XCTAssertTrue(grey, "greyscale decodes to equal R, G and B, opaque")
            }
        }
    }

    func testEncodedJPEGIsReadByPillowAndDjpegWithTheRightFacts() throws {
        let image = try ImageGenerator.photoLike(width: 200, height: 150, seed: 2)
        let baseline = try scratch.write(image.jpegData(quality: 85), "b.jpg")
        let progressive = try scratch.write(image.jpegData(quality: 85, progressive: true), "p.jpg")
        let script = """
            import sys
            from PIL import Image
            for path in sys.argv[1:]:
                im = Image.open(path)
                im.load()
                print(im.format, im.size[0], im.size[1], im.mode, im.info.get('progressive', 0))
            """
        let output = try Tools.pillow(script, [baseline, progressive])
        XCTAssertEqual(output.stdout, "JPEG 200 150 RGB 0\nJPEG 200 150 RGB 1\n")
        // djpeg reads both; ours and djpeg agree pixel for pixel.
        XCTAssertEqual(try djpeg(baseline), try RGBAImage(decoding: Data(contentsOf: URL(fileURLWithPath: baseline))))
        XCTAssertEqual(try djpeg(progressive), try RGBAImage(decoding: Data(contentsOf: URL(fileURLWithPath: progressive))))
    }

    func testQuality85OnThePhotoPatternIsAtLeast30dBAgainstTheSource() throws {
        let image = try ImageGenerator.generate(width: 480, height: 320, pattern: .photo)
        let png = try scratch.write(image.pngData(), "source.png")
        let script = """
            import sys, math
            from PIL import Image, ImageChops
            a = Image.open(sys.argv[1]).convert('RGB')
            for path in sys.argv[2:]:
                b = Image.open(path).convert('RGB')
                diff = ImageChops.difference(a, b)
                histogram = diff.histogram()
                mse = sum(count * (i % 256) ** 2 for i, count in enumerate(histogram)) / (a.size[0] * a.size[1] * 3)
                print('%.2f' % (10 * math.log10(255 * 255 / mse)))
            """
        var paths: [String] = []
        for (quality, progressive) in [(85, false), (85, true), (30, false)] {
            paths.append(try scratch.write(image.jpegData(quality: quality, progressive: progressive), "q\(quality)\(progressive).jpg"))
        }
        let values = try Tools.pillow(script, [png] + paths).stdout.split(separator: "\n").compactMap { Double($0) }
        XCTAssertEqual(values.count, 3)
        XCTAssertGreaterThanOrEqual(values[0], 30, "baseline q85 PSNR")
        XCTAssertGreaterThanOrEqual(values[1], 30, "progressive q85 PSNR")
        XCTAssertLessThan(values[2], values[0], "quality 30 loses more than 85: the quality is applied")
        // Photo-like sizes: far smaller than the raw pixels, far larger than a flat pattern.
        let size = try image.jpegData(quality: 85).count
        XCTAssertLessThan(size, 480 * 320 * 3 / 4)
        XCTAssertGreaterThan(size, try ImageGenerator.generate(width: 480, height: 320, pattern: .gradient).jpegData().count * 2)
    }

    func testAdobeCMYKDecodesToRGB() throws {
        // Pillow writes CMYK JPEGs the Adobe way (inverted); cyan-free magenta+yellow is red.
        let path = scratch.path("cmyk.jpg")
        try Tools.pillow(
            "import sys; from PIL import Image; Image.new('CMYK', (16, 8), (0, 255, 255, 0)).save(sys.argv[1], quality=100)",
            [path]
        )
        let image = try RGBAImage(decoding: Data(contentsOf: URL(fileURLWithPath: path)))
        XCTAssertEqual(image.width, 16)
        XCTAssertEqual(image.height, 8)
        let first = Array(image.pixels.prefix(4))
        XCTAssertGreaterThan(first[0], 245, "\(first)")
        XCTAssertLessThan(first[1], 10, "\(first)")
        XCTAssertLessThan(first[2], 10, "\(first)")
        XCTAssertEqual(first[3], 255)
    }

    func testTransparencyIsCompositedOverWhite() throws {
        let clear = try RGBAImage(width: 16, height: 16, pixels: [UInt8](repeating: 0, count: 16 * 16 * 4))
        let decoded = try RGBAImage(decoding: clear.jpegData())
        XCTAssertTrue(decoded.pixels.allSatisfy { $0 >= 250 }, "transparent black becomes white, not black")
    }

    func testTranscoderServesJPEGAndTakesJPEGIn() throws {
        let transcoder = ImageTranscoder()
        let image = try ImageGenerator.photoLike(width: 64, height: 48)
        let jpeg = try transcoder.transcodeSync(image.pngData(), to: .jpegProgressive(quality: 70))
        XCTAssertEqual(ImageKind.detect(jpeg), .jpeg)
        XCTAssertEqual(jpeg, try image.jpegData(quality: 70, progressive: true))
        let png = try transcoder.transcodeSync(jpeg, to: .png)
        XCTAssertEqual(try RGBAImage(decoding: png), try RGBAImage(decoding: jpeg))
        XCTAssertEqual(ImageFormat.jpeg(quality: 0).description, "jpeg(q=1)")
        XCTAssertEqual(ImageFormat.jpegProgressive(quality: 200).description, "jpeg-progressive(q=100)")
        XCTAssertEqual(ImageFormat.jpeg(quality: 85).kind.mimeType, "image/jpeg")
    }

    // MARK: - Errors

    private func error(decoding data: Data) -> ImageError? {
        do {
            _ = try RGBAImage(decoding: data)
            return nil
        } catch {
            return error as? ImageError
        }
    }

    func testTruncatedJPEGsAreTruncatedErrors() throws {
        let jpeg = try ImageGenerator.photoLike(width: 64, height: 64).jpegData()
        for cut in [3, 20, jpeg.count / 2, jpeg.count - 2] {
            let error = error(decoding: jpeg.prefix(cut))
            XCTAssertEqual(error?.code, .truncated, "cut at \(cut)")
            XCTAssertEqual(error?.description, "truncated JPEG: the data ends after \(cut) bytes, before the image is complete")
        }
        XCTAssertEqual(error(decoding: Data([0xFF, 0xD8]))?.code, .truncated, "half a signature")
    }

    func testCorruptJPEGsNameLibjpegsReason() throws {
        var jpeg = [UInt8](try ImageGenerator.photoLike(width: 64, height: 64).jpegData())
        // Entropy-coded data cut short by a stray end-of-image marker half-way through the scan:
        // libjpeg itself only warns and fills the rest with grey.
        let scan = try XCTUnwrap(jpeg.indices.first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xDA })
        let middle = scan + (jpeg.count - scan) / 2
        jpeg[middle] = 0xFF
        jpeg[middle + 1] = 0xD9
        let garbled = error(decoding: Data(jpeg))
        XCTAssertEqual(garbled?.code, .corrupt)
        XCTAssertEqual(garbled?.description, "corrupt JPEG: libjpeg: Corrupt JPEG data: premature end of data segment")
        XCTAssertTrue(garbled?.description.hasPrefix("corrupt JPEG: libjpeg: ") == true, garbled?.description ?? "no error")

        // A segment with an undefined marker type.
        let undefined = Data([0xFF, 0xD8, 0xFF, 0x4F, 0x00, 0x04, 0x00, 0x00, 0xFF, 0xD9])
        XCTAssertEqual(error(decoding: undefined)?.description, "corrupt JPEG: libjpeg: Unsupported marker type 0x4f")
    }

    func testAbsurdSizesAreRefusedFromTheHeader() throws {
        // A baseline frame header claiming 60000 x 60000 (3.6 Gpx), and nothing else.
        let sof: [UInt8] = [0xFF, 0xC0, 0x00, 0x11, 0x08, 0xEA, 0x60, 0xEA, 0x60, 0x03,
                            0x01, 0x22, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11, 0x01]
        let huge = try Self.jpeg(replacingFrameHeaderOf: ImageGenerator.photoLike(width: 16, height: 16).jpegData(), with: sof)
        let error = error(decoding: huge)
        XCTAssertEqual(error?.code, .tooLarge)
        XCTAssertEqual(error?.description,
                       "image of 60000x60000 = 3600000000 pixels is over the limit of 67108864 pixels; raise pixelLimit to allow it")
        // Zero height: libjpeg's own message.
        var zero = sof
        zero[5] = 0
        zero[6] = 0
        let empty = self.error(decoding: try Self.jpeg(replacingFrameHeaderOf: ImageGenerator.photoLike(width: 16, height: 16).jpegData(), with: zero))
        XCTAssertEqual(empty?.code, .corrupt)
        XCTAssertEqual(empty?.description, "corrupt JPEG: libjpeg: Empty JPEG image (DNL not supported)")
    }

    /// A JPEG with its SOF0 segment replaced.
    static func jpeg(replacingFrameHeaderOf data: Data, with sof: [UInt8]) throws -> Data {
        let bytes = [UInt8](data)
        var index = 2
        while index + 3 < bytes.count {
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            if bytes[index + 1] == 0xC0 {
                return Data(bytes[..<index] + sof + bytes[(index + 2 + length)...])
            }
            index += 2 + length
        }
        throw Tools.ToolFailure()
    }
}

/// Netpbm images, the format djpeg writes and cjpeg reads.
enum PNM {
    static func ppm(_ image: RGBAImage) -> Data {
        var data = Data("P6\n\(image.width) \(image.height)\n255\n".utf8)
        data.reserveCapacity(data.count + image.width * image.height * 3)
        for index in stride(from: 0, to: image.pixels.count, by: 4) {
            data.append(contentsOf: image.pixels[index..<index + 3])
        }
        return data
    }

    /// P5 (grey) or P6 (RGB), 8-bit, as RGBA.
    static func decode(_ data: Data) throws -> RGBAImage {
        let bytes = [UInt8](data)
        var fields: [String] = []
        var index = 0
        while fields.count < 4 {
            while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A { index += 1 }
            let start = index
            while index < bytes.count, bytes[index] != 0x20, bytes[index] != 0x0A { index += 1 }
            fields.append(String(decoding: bytes[start..<index], as: UTF8.self))
        }
        index += 1
        guard let width = Int(fields[1]), let height = Int(fields[2]) else { throw Tools.ToolFailure() }
        let channels = fields[0] == "P5" ? 1 : 3
        var pixels: [UInt8] = []
        pixels.reserveCapacity(width * height * 4)
        for pixel in 0..<(width * height) {
            let base = index + pixel * channels
            if channels == 1 {
                pixels += [bytes[base], bytes[base], bytes[base], 255]
            } else {
                pixels += [bytes[base], bytes[base + 1], bytes[base + 2], 255]
            }
        }
        return try RGBAImage(width: width, height: height, pixels: pixels)
    }
}
