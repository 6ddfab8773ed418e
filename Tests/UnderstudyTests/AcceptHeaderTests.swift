import Understudy
import XCTest

final class AcceptHeaderTests: XCTestCase {
    func testMostSpecificRangeWins() {
        let accept = AcceptHeader("image/avif,image/webp,image/*;q=0.8,*/*;q=0.5")
        XCTAssertEqual(accept.quality(of: "image/webp"), 1)
        XCTAssertEqual(accept.quality(of: "image/png"), 0.8)
        XCTAssertEqual(accept.quality(of: "text/html"), 0.5)
    }

    func testQZeroExcludesEvenUnderAWildcard() {
        let accept = AcceptHeader("image/*, image/webp;q=0")
        XCTAssertEqual(accept.quality(of: "image/webp"), 0)
        XCTAssertFalse(accept.admits("image/webp"))
        XCTAssertTrue(accept.admits("image/png"))
    }

    func testNoHeaderAdmitsAnythingAndAnEmptyOneNothing() {
        XCTAssertEqual(AcceptHeader(nil).quality(of: "image/webp"), 1)
        XCTAssertEqual(AcceptHeader("").quality(of: "image/webp"), 0)
    }

    func testCaseSpacesParametersAndMalformedRanges() {
        let accept = AcceptHeader(" IMAGE/PNG ; Q=0.7 , garbage, */png, text/plain;charset=utf-8;q=0.3")
        XCTAssertEqual(accept.quality(of: "image/png"), 0.7)
        XCTAssertEqual(accept.quality(of: "text/plain; charset=utf-8"), 0.3)
        XCTAssertEqual(accept.quality(of: "text/plain"), 0, "a range with parameters covers only types that have them")
        XCTAssertEqual(accept.ranges?.count, 2, "malformed ranges are skipped")
    }

    func testOutOfRangeQCountsAsOne() {
        XCTAssertEqual(AcceptHeader("image/png;q=7").quality(of: "image/png"), 1)
    }
}
