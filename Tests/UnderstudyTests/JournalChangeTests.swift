import Foundation
import Understudy
import XCTest

/// `Journal.version` and `change(after:)`: what the dashboard's live stream waits on.
final class JournalChangeTests: XCTestCase {
    private let request = StubRequest(method: "GET", url: URL(string: "http://img.example.com/a.png")!)

    func testEveryChangeMovesTheVersion() {
        let journal = Journal(limit: 1)
        XCTAssertEqual(journal.version, 0)
        let id = journal.open(request, transport: .server, httpVersion: .http1_1)
        XCTAssertEqual(journal.version, 1, "an entry opened")
        journal.complete(id, with: InteractionResult(stubName: "a", status: 200, outcome: .completed))
        XCTAssertEqual(journal.version, 2, "an entry completed")
        journal.record(request, transport: .server, startTime: Date(), result: InteractionResult(stubName: "a", status: 200, outcome: .completed))
        XCTAssertEqual(journal.version, 3, "an entry recorded whole (dropping the old one) is one change")
        journal.complete(id, with: InteractionResult(stubName: "a", status: 200, outcome: .completed))
        XCTAssertEqual(journal.version, 3, "completing an entry no longer kept changes nothing")
        journal.clear()
        XCTAssertEqual(journal.version, 4, "cleared")
    }

    func testAWaiterIsWokenByTheNextChangeAndReturnsAtOnceWhenBehind() async {
        let journal = Journal()
        let behind = await journal.change(after: -1)
        XCTAssertEqual(behind, 0, "a version that differs returns at once")

        let waiter = Task { await journal.change(after: 0) }
        try? await Task.sleep(for: .milliseconds(50))
        journal.record(request, transport: .inProcess, startTime: Date(), result: InteractionResult(stubName: nil, status: 404, outcome: .unmatched))
        let woken = await waiter.value
        XCTAssertEqual(woken, 1)
    }

    func testCancellingEndsTheWait() async {
        let journal = Journal()
        let waiter = Task { await journal.change(after: 0) }
        try? await Task.sleep(for: .milliseconds(50))
        waiter.cancel()
        let ended = await waiter.value
        XCTAssertEqual(ended, 0, "nothing changed; the wait ended because it was cancelled")
    }
}
