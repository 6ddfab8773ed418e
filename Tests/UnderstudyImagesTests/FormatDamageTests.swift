import Foundation
import UnderstudyImages
import XCTest

/// Each kind of damage makes a real decoder fail on AVIF (avifdec), HEIC (heif-convert) and
/// GIF (Pillow, and giflib through our all-frames decoder for `garbage-tail`).
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
                if damage == .garbageTail && kind == .gif {
                    // Pillow stops at the last image; giflib reads on to the trailer.
                    XCTAssertEqual(try decode(broken, kind: kind).status, 0)
                    XCTAssertThrowsError(try RGBAImage.frames(decoding: broken)) { error in
                        XCTAssertEqual("\(error)", "corrupt GIF: giflib: Wrong record type detected (107)")
                    }
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
        XCTAssertEqual(Array(tail[..<mdat.offset]), Array(avif[..<mdat.offset]))
        XCTAssertEqual(Array(tail[(mdat.offset + 1024)...]), Array(avif[mdat.offset...]), "the noise sits just before mdat")
        XCTAssertEqual([UInt8](ImageDamage.wrongSignature.apply(to: Data(avif))).prefix(8), [0, 0, 0, 0] + Array("ftyp".utf8))

        let gif = [UInt8](try image.gifData())
        let gifTail = [UInt8](ImageDamage.garbageTail.apply(to: Data(gif)))
        XCTAssertEqual(gifTail.last, 0x3B, "the trailer stays last")
        XCTAssertEqual(Array(gifTail.prefix(gif.count - 1)), Array(gif.dropLast()))
        XCTAssertEqual(String(decoding: ImageDamage.wrongSignature.apply(to: Data(gif)).dropFirst(4).prefix(2), as: UTF8.self), "9a")
    }
}
