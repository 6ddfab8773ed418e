import Foundation
import UnderstudyImages
import XCTest

/// Each kind of damage but `garbage-tail` makes a real decoder fail on AVIF (avifdec), HEIC
/// (heif-convert) and GIF (Pillow); `garbage-tail` (bytes after the image's end, as for every
/// format) is ignored by them and by ours, as a lenient client ignores it.
final class FormatDamageTests: XCTestCase {
    private var scratch: Scratch!

    override func setUpWithError() throws { scratch = try Scratch() }
    override func tearDown() { scratch = nil }

    private let image = try! ImageGenerator.photoLike(width: 64, height: 48, seed: 9, opaque: false)

    /// Exit status and message of the independent decoder for `kind`.
    private func decode(_ data: Data, kind: ImageKind) throws -> Tools.Output {
        let path = try scratch.write(data, UUID().uuidString + "." + kind.fileExtension)
        switch kind {
        case .avif: return try Tools.run("avifdec", [path, scratch.path("out.png")])
        case .heic: return try Tools.run("heif-convert", [path, scratch.path("out.png")])
        default:
            return try Tools.run(Tools.python, ["-c", "import sys\nfrom PIL import Image\nim = Image.open(sys.argv[1])\nim.load()", path])
        }
    }

    func testEveryDamageMakesTheIndependentDecoderFailAndKeepsTheSignatureKind() throws {
        let encoded: [(ImageKind, Data)] = [
            (.avif, try image.avifData(quality: 60, speed: 10)),
            (.heic, try image.heicData(quality: 60)),
            (.gif, try image.gifData()),
        ]
        for (kind, data) in encoded {
            XCTAssertEqual(try decode(data, kind: kind).status, 0, "\(kind) undamaged decodes")
            for damage in ImageDamage.allCases {
                let broken = damage.apply(to: data)
                XCTAssertNotEqual(broken, data)
                XCTAssertEqual(damage.apply(to: data), broken, "\(damage) is deterministic")
                if damage == .garbageTail {
                    XCTAssertEqual(try decode(broken, kind: kind).status, 0, "\(kind): bytes after the end are ignored")
                    XCTAssertEqual(try RGBAImage.frames(decoding: broken), try RGBAImage.frames(decoding: data), "\(kind)")
                    continue
                }
                let result = try decode(broken, kind: kind)
                XCTAssertNotEqual(result.status, 0, "\(kind) with \(damage) must fail: \(result.stdout)")
                // Ours fails too, with an error rather than a crash.
                XCTAssertThrowsError(try RGBAImage.frames(decoding: broken), "\(kind) \(damage)")
            }
        }
    }

    func testWhereEachDamageGoesInTheBoxesAndBlocks() throws {
        let avif = [UInt8](try image.avifData(quality: 60, speed: 10))
        let boxes = ImageDamage.topLevelBoxes(avif)
        XCTAssertEqual(boxes.map(\.type), ["ftyp", "meta", "mdat"])
        let mdat = try XCTUnwrap(boxes.last)
        let checksum = [UInt8](ImageDamage.badChecksum.apply(to: Data(avif)))
        XCTAssertEqual(zip(checksum, avif).enumerated().filter { $0.element.0 != $0.element.1 }.map(\.offset), Array(mdat.payload..<mdat.payload + 4))
        let tail = [UInt8](ImageDamage.garbageTail.apply(to: Data(avif)))
        XCTAssertEqual(tail.count, avif.count + 1024)
        XCTAssertEqual(Array(tail.prefix(avif.count)), avif, "the noise follows the last box")
        XCTAssertEqual([UInt8](ImageDamage.wrongSignature.apply(to: Data(avif))).prefix(8), [0, 0, 0, 0] + Array("ftyp".utf8))

        let gif = [UInt8](try image.gifData())
        let gifTail = [UInt8](ImageDamage.garbageTail.apply(to: Data(gif)))
        XCTAssertEqual(Array(gifTail.prefix(gif.count)), gif, "the noise follows the trailer")
        XCTAssertEqual(gifTail.count, gif.count + 1024)
        XCTAssertEqual(String(decoding: ImageDamage.wrongSignature.apply(to: Data(gif)).dropFirst(4).prefix(2), as: UTF8.self), "9a")
    }
}
