import Foundation
import Understudy
import UnderstudyImages
import XCTest

/// A file's content type by its extension: the image formats' from `ImageKind`'s one table, in
/// any case, the rest from `MediaType`'s.
final class MediaTypeTests: XCTestCase {
    func testImageExtensionsGiveTheImageKindsTypes() {
        for kind in ImageKind.allCases {
            XCTAssertEqual(MediaType.forExtension(kind.fileExtension), kind.mimeType)
            XCTAssertEqual(MediaType.forExtension(kind.fileExtension.uppercased()), kind.mimeType)
        }
        XCTAssertEqual(MediaType.forExtension("jpeg"), "image/jpeg")
        XCTAssertEqual(MediaType.forExtension("HEIF"), "image/heic")
        XCTAssertEqual(ImageKind(fileExtension: "Jpg"), .jpeg)
        XCTAssertNil(ImageKind(fileExtension: "svg"))
    }

    func testOtherExtensionsKeepTheirTypes() {
        XCTAssertEqual(MediaType.forExtension("svg"), "image/svg+xml")
        XCTAssertEqual(MediaType.forExtension("json"), "application/json")
        XCTAssertEqual(MediaType.forExtension("bin"), "application/octet-stream")
    }
}
