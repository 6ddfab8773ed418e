import Foundation
import UnderstudyImages
import XCTest

/// `ImageDamage`: each kind, in each format, as Pillow, pngcheck and our decoders see it.
final class DamageTests: XCTestCase {
    private var scratch: Scratch!

    override func setUpWithError() throws { scratch = try Scratch() }
    override func tearDown() { scratch = nil }

    /// Pillow's verdict on each file: `ok W H` or `error ExceptionName`, with truncated images
    /// refused (LOAD_TRUNCATED_IMAGES off, its default).
    private func pillow(_ paths: [String]) throws -> [String] {
        let script = """
            import sys
            from PIL import Image, ImageFile
            ImageFile.LOAD_TRUNCATED_IMAGES = False
            for path in sys.argv[1:]:
                try:
                    im = Image.open(path)
                    im.load()
                    print('ok', im.size[0], im.size[1])
                except Exception as e:
                    print('error', type(e).__name__)
            """
        return try Tools.pillow(script, paths).stdout.split(separator: "\n").map(String.init)
    }

    func testEveryDamageBreaksEveryFormatForPillowExceptAGarbageTail() throws {
        let image = try ImageGenerator.photoLike(width: 96, height: 64, seed: 4)
        let encodings: [(String, Data)] = [
            ("png", try image.pngData()),
            ("jpg", try image.jpegData()),
            ("progressive.jpg", try image.jpegData(progressive: true)),
            ("webp", try image.webPData(quality: 80)),
            ("lossless.webp", try image.webPLosslessData()),
        ]
        var paths: [String] = []
        var labels: [String] = []
        for (name, data) in encodings {
            for damage in ImageDamage.allCases {
                let damaged = damage.apply(to: data)
                XCTAssertNotEqual(damaged, data, "\(damage) \(name)")
                XCTAssertEqual(damage.apply(to: data), damaged, "deterministic")
                paths.append(try scratch.write(damaged, "\(damage).\(name)"))
                labels.append("\(damage) \(name)")
            }
        }
        let verdicts = try pillow(paths)
        for (label, verdict) in zip(labels, verdicts) {
            if label.hasPrefix("garbage-tail") {
                XCTAssertEqual(verdict, "ok 96 64", "\(label): lenient decoders ignore what follows the image")
            } else {
                XCTAssertTrue(verdict.hasPrefix("error"), "\(label): Pillow gave \(verdict)")
            }
        }
        XCTAssertEqual(verdicts.count, labels.count)
    }

    func testWhatEachDamageDoesToTheBytes() throws {
        let png = try ImageGenerator.photoLike(width: 32, height: 32).pngData()
        XCTAssertEqual(ImageDamage.truncated.apply(to: png), png.prefix(png.count / 2))
        XCTAssertEqual(Array(ImageDamage.wrongSignature.apply(to: png).prefix(8)), [0, 0, 0, 0, 0x0D, 0x0A, 0x1A, 0x0A])
        let tailed = ImageDamage.garbageTail.apply(to: png)
        XCTAssertEqual(tailed.prefix(png.count), png)
        XCTAssertEqual(tailed.count, png.count + 1024)
        let broken = ImageDamage.badChecksum.apply(to: png)
        XCTAssertEqual(zip(broken, png).enumerated().filter { $0.element.0 != $0.element.1 }.map(\.offset), [29, 30, 31, 32],
                       "only the IHDR CRC changes")
        XCTAssertEqual(ImageDamage(rawValue: "bad-checksum"), .badChecksum)
        XCTAssertEqual(ImageDamage.allCases.map(\.description), ["truncated", "bad-checksum", "wrong-signature", "garbage-tail"])
    }

    func testPngcheckRejectsEachDamagedPNG() throws {
        let png = try ImageGenerator.photoLike(width: 32, height: 32).pngData()
        for damage in ImageDamage.allCases {
            let path = try scratch.write(damage.apply(to: png), "\(damage).png")
            let result = try Tools.run("pngcheck", [path])
            XCTAssertNotEqual(result.status, 0, "\(damage): \(result.stdout)")
        }
        XCTAssertEqual(try Tools.run("pngcheck", [try scratch.write(png, "fine.png")]).status, 0)
    }

    func testOurDecodersReportEachDamage() throws {
        let image = try ImageGenerator.photoLike(width: 32, height: 32)
        func code(_ data: Data) -> ImageError.Code? {
            do {
                _ = try RGBAImage(decoding: data)
                return nil
            } catch {
                return (error as? ImageError)?.code
            }
        }
        for (name, data) in [("png", try image.pngData()), ("jpeg", try image.jpegData()), ("webp", try image.webPData(quality: 80))] {
            XCTAssertEqual(code(ImageDamage.truncated.apply(to: data)), .truncated, name)
            XCTAssertEqual(code(ImageDamage.badChecksum.apply(to: data)), .corrupt, name)
            XCTAssertEqual(code(ImageDamage.wrongSignature.apply(to: data)), .notAnImage, name)
            XCTAssertNil(code(ImageDamage.garbageTail.apply(to: data)), name)
        }
    }
}
