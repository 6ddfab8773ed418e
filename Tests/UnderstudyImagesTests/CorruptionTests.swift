import Foundation
import UnderstudyImages
import XCTest

/// Damaged images are errors, never crashes: every libpng longjmp and libwebp failure path
/// must come back as an ``ImageError``.
final class CorruptionTests: XCTestCase {
    private struct LCG {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
    }

    func testDamagedImagesFailWithImageErrors() throws {
        let image = try ImageGenerator.photoLike(width: 40, height: 30, seed: 8, opaque: false)
        let interlaced = RawPNGWriter(
            width: 9, height: 7, colorType: .greyAlpha, bitDepth: 16, interlaced: true,
            samples: (0..<63).map { [$0 * 1000, 65535 - $0 * 1000] }
        ).encode()
        let originals = [try image.pngData(), interlaced, try image.webPData(quality: 70), try image.webPLosslessData()]
        var random = LCG(state: 42)
        var failures: [ImageError.Code: Int] = [:]
        var decoded = 0
        for original in originals {
            for round in 0..<150 {
                var damaged = original
                if round % 3 == 0 {
                    damaged = damaged.prefix(random.next(damaged.count))
                } else {
                    for _ in 0..<(1 + random.next(4)) {
                        // Past the signature, so the format is still recognised.
                        let index = 12 + random.next(damaged.count - 12)
                        damaged[index] = UInt8(random.next(256))
                    }
                }
                do {
                    let result = try RGBAImage(decoding: damaged)
                    XCTAssertEqual(result.pixels.count, result.width * result.height * 4)
                    decoded += 1
                } catch let error as ImageError {
                    XCTAssertFalse(error.description.isEmpty)
                    failures[error.code, default: 0] += 1
                }
            }
        }
        // Both kinds of failure occurred, so the error paths really ran.
        XCTAssertGreaterThan(failures[.truncated] ?? 0, 50)
        XCTAssertGreaterThan(failures[.corrupt] ?? 0, 50)
        XCTAssertEqual(decoded + failures.values.reduce(0, +), 600)
    }
}
