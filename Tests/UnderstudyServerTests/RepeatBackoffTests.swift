@testable import UnderstudyServer
import XCTest

/// When a connection keeps a request for a repeat: every time while the client repeats itself,
/// one request in ``RepeatBackoff/retryInterval`` once ``RepeatBackoff/patience`` kept ones in a
/// row went unrepeated, and every time again from the next repeat.
final class RepeatBackoffTests: XCTestCase {
    /// Which of the next `count` requests `backoff` keeps, as 1-based positions.
    private func kept(_ count: Int, by backoff: inout RepeatBackoff) -> [Int] {
        (1...count).filter { _ in backoff.keepsNext() }
    }

    /// A client that never repeats, as a connection sees it: each kept request is missed by the next.
    private func neverRepeated(_ count: Int, by backoff: inout RepeatBackoff) -> [Int] {
        var kept: [Int] = []
        var keptLast = false
        for position in 1...count {
            if keptLast { backoff.missed() }
            keptLast = backoff.keepsNext()
            if keptLast { kept.append(position) }
        }
        return kept
    }

    func testAFreshConnectionKeepsEveryRequest() {
        var backoff = RepeatBackoff()
        XCTAssertEqual(kept(100, by: &backoff), Array(1...100), "nothing was missed yet")
    }

    func testAClientThatRepeatsIsKeptEveryTime() {
        var backoff = RepeatBackoff()
        for request in 1...100 {
            XCTAssertTrue(backoff.keepsNext(), "request \(request)")
            backoff.repeated()
        }
    }

    func testMissesShortOfThePatienceStillKeepEveryRequest() {
        var backoff = RepeatBackoff()
        for _ in 1..<RepeatBackoff.patience { backoff.missed() }
        XCTAssertEqual(kept(10, by: &backoff), Array(1...10), "\(RepeatBackoff.patience - 1) misses in a row")
    }

    func testARepeatStartsTheCountOfMissesAgain() {
        var backoff = RepeatBackoff()
        for _ in 0..<5 {
            for _ in 1..<RepeatBackoff.patience { backoff.missed() }
            backoff.repeated()
        }
        XCTAssertEqual(kept(10, by: &backoff), Array(1...10), "never \(RepeatBackoff.patience) misses in a row")
    }

    func testAClientThatNeverRepeatsIsKeptOnceInEachRetryInterval() {
        XCTAssertEqual(RepeatBackoff.patience, 4)
        XCTAssertEqual(RepeatBackoff.retryInterval, 32)
        var backoff = RepeatBackoff()
        // The first four are kept and missed; then one in 32, the 32nd after the last kept one.
        XCTAssertEqual(neverRepeated(4 + 3 * 32, by: &backoff), [1, 2, 3, 4, 4 + 32, 4 + 64, 4 + 96])
    }

    func testMoreMissesWhileBackingOffKeepTheSameInterval() {
        var backoff = RepeatBackoff()
        for _ in 0..<RepeatBackoff.patience { backoff.missed() }
        XCTAssertEqual(kept(64, by: &backoff), [32, 64])
        backoff.missed()
        XCTAssertEqual(kept(64, by: &backoff), [32, 64], "a further miss neither resets nor lengthens the interval")
    }

    func testARepeatWhileBackingOffKeepsEveryRequestAgain() {
        var backoff = RepeatBackoff()
        _ = neverRepeated(4 + 32, by: &backoff)
        backoff.repeated()
        XCTAssertEqual(kept(10, by: &backoff), Array(1...10), "the client repeats itself again")
        // And backs off as before once it stops.
        XCTAssertEqual(neverRepeated(4 + 32, by: &backoff), [1, 2, 3, 4, 4 + 32])
    }
}
