import Foundation
import Understudy
import XCTest

/// Entries taken out of the journal one by one or by a matcher (WireMock's
/// `DELETE /__admin/requests/{id}` and `POST /__admin/requests/remove`): gone from every
/// read, while the others keep their ids.
final class JournalRemovalTests: XCTestCase {
    private func request(_ path: String) -> StubRequest {
        StubRequest(url: URL(string: "http://a.test\(path)")!)
    }

    private func filled(_ paths: [String]) -> (Journal, [Int]) {
        let journal = Journal()
        let ids = paths.map { path in
            let id = journal.open(request(path), transport: .server, httpVersion: .http1_1)
            let matched = !path.hasSuffix(".webp")
            journal.complete(id, with: InteractionResult(stubName: matched ? "s" : nil, status: matched ? 200 : 404, outcome: matched ? .completed : .unmatched))
            return id
        }
        return (journal, ids)
    }

    func testRemovingOneEntryHidesItFromEveryReadAndKeepsTheOthersIDs() {
        let (journal, ids) = filled(["/a.png", "/b.webp", "/c.png", "/d.webp"])
        XCTAssertTrue(journal.remove(id: ids[1]))
        XCTAssertFalse(journal.remove(id: ids[1]), "already removed")
        XCTAssertFalse(journal.remove(id: 9_999), "never there")
        XCTAssertEqual(journal.count, 3)
        XCTAssertEqual(journal.interactions.map(\.request.path), ["/a.png", "/c.png", "/d.webp"])
        XCTAssertEqual(journal.interactions.map(\.id), [ids[0], ids[2], ids[3]])
        XCTAssertEqual(journal.unmatched.map(\.request.path), ["/d.webp"])
        XCTAssertNil(journal.interaction(id: ids[1]))
        XCTAssertEqual(journal.interaction(id: ids[2])?.request.path, "/c.png")
        XCTAssertEqual(journal.count(matching: .pathExtension("webp")), 1)
    }

    func testRemovingByAMatcherAnswersTheRemovedOldestFirst() async throws {
        let (journal, ids) = filled(["/a.png", "/b.webp", "/c.png", "/d.webp"])
        let removed = journal.remove(matching: .pathExtension("png"))
        XCTAssertEqual(removed.map(\.request.path), ["/a.png", "/c.png"])
        XCTAssertEqual(removed.map(\.id), [ids[0], ids[2]])
        XCTAssertEqual(journal.interactions.map(\.request.path), ["/b.webp", "/d.webp"])
        XCTAssertEqual(journal.remove(matching: .pathExtension("png")).count, 0, "nothing left to remove")
        let waited = Task { try await journal.wait(for: .pathExtension("png"), count: 1, timeout: .milliseconds(300)) }
        do {
            try await waited.value
            XCTFail("a wait must not count removed entries")
        } catch is JournalTimeoutError {}
    }

    func testRemovedEntriesRotatingOutAreNotCountedAsDropped() {
        let journal = Journal(limit: 3)
        let ids = ["/1", "/2", "/3"].map { journal.open(request($0), transport: .server, httpVersion: .http1_1) }
        journal.remove(id: ids[0])
        for path in ["/4", "/5"] { _ = journal.open(request(path), transport: .server, httpVersion: .http1_1) }
        XCTAssertEqual(journal.interactions.map(\.request.path), ["/3", "/4", "/5"])
        XCTAssertEqual(journal.droppedCount, 1, "only /2 was dropped; /1 had been removed")
        XCTAssertEqual(journal.count, 3)
    }
}
