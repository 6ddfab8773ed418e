import Foundation
import UnderstudyImages
import XCTest

/// Which hazards a build serves, as the article "Testing an image client against hazards"
/// says: every one with the C codecs; without them (this suite runs in `make test-portable`,
/// the Linux build nearest to Apple platforms') those written by hand or as 8-bit PNGs, and
/// for the others SPEC 18's clear error, which the server answers and a stub file's load reports.
final class HazardPlatformTests: XCTestCase {
    /// The hazards a build without the C codecs serves, as the article lists them.
    static let servedWithoutCCodecs: Set<String> = [
        "bomb-png", "bomb-gif", "metadata-before-pixels",
        "content-type-missing", "content-type-octet-stream", "content-type-wrong", "html-200", "captive-portal", "gzip-encoded",
        "gzip-unlabelled", "length-longer-than-body", "empty-200", "negotiated-without-vary",
        "changes-no-cache", "changes-max-age-0", "changes-no-store", "changes-must-revalidate", "changes-pragma-no-cache",
        "changes-expired", "not-modified-without-validator", "error-after-image", "truncated-then-whole",
    ]

    func testEachHazardIsServedOrGivesSPEC18sErrorAsTheArticleSays() throws {
        var served = Set<String>()
        var errors: [String: String] = [:]
        for hazard in Hazard.allCases {
            do {
                _ = try hazard.imageData()
                served.insert(hazard.name)
            } catch {
                errors[hazard.name] = "\(error)"
            }
        }
        guard !ImageKind.jpeg.canEncode else {
            XCTAssertEqual(served.count, Hazard.allCases.count, "with the C codecs every hazard is served: \(errors)")
            return
        }
        XCTAssertEqual(served, Self.servedWithoutCCodecs)
        let platform = "Linux without the SystemCodecs trait"
        func cannotEncode(_ format: String) -> String {
            "cannot encode \(format) on \(platform): its codecs encode PNG only; serve a \(format) file made with `understudy transcode` (format original), or run `understudy serve` on a host whose codecs encode \(format)"
        }
        XCTAssertEqual(errors["orientation-6"], cannotEncode("JPEG"))
        XCTAssertEqual(errors["animation-partial-frames-gif"], cannotEncode("GIF"))
        XCTAssertEqual(errors["animation-partial-frames"], cannotEncode("WebP"))
        XCTAssertEqual(errors["extension-mismatch"], cannotEncode("WebP"))
        XCTAssertEqual(
            errors["png-16-bit"],
            "cannot encode a 16-bit PNG of colour type 6 on \(platform): its PNG encoder writes 8-bit RGB and RGBA only; run `understudy hazards --write DIR` on Linux with the SystemCodecs trait and serve the files"
        )
    }
}
