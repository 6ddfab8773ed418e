@testable import UnderstudyServer
import XCTest

/// The one place the HTTP/2 frame path decides its WINDOW_UPDATEs: nothing while the client
/// still has more than half the window, then all of it back in one update.
final class HTTP2InboundWindowTests: XCTestCase {
    func testAWindowAboveHalfItsTargetGetsNothingAndAtHalfOrBelowAllOfItBack() {
        let window = HTTP2InboundWindow()
        XCTAssertNil(window.increment(for: 65_535), "untouched")
        XCTAssertNil(window.increment(for: 32_768), "just above half")
        XCTAssertEqual(window.increment(for: 32_767), 32_768, "half: back to the full window")
        XCTAssertEqual(window.increment(for: 0), 65_535, "spent")
    }

    func testAWindowASettingsChangeLeftNegativeIsFilledToItsTarget() {
        XCTAssertEqual(HTTP2InboundWindow().increment(for: -1_000), 66_535)
        XCTAssertEqual(HTTP2InboundWindow(target: 1_024).increment(for: 100), 924, "a small window is filled as well")
        XCTAssertNil(HTTP2InboundWindow(target: 1_024).increment(for: 600))
    }

    func testAnIncrementNeverPassesWhatAWindowUpdateCanCarry() {
        XCTAssertEqual(HTTP2InboundWindow(target: Int(Int32.max)).increment(for: -5), Int(Int32.max))
    }
}
