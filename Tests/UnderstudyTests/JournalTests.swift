import Foundation
import Understudy
import XCTest

private func request(_ path: String) -> StubRequest {
    StubRequest(url: URL(string: "http://a.test\(path)")!)
}

final class JournalTests: XCTestCase {
    func testEntriesKeepArrivalOrderAndAreCompletedLater() {
        let journal = Journal()
        let first = journal.open(request("/1"), transport: .server, httpVersion: .http1_1)
        let second = journal.open(request("/2"), transport: .inProcess, redirectedFrom: first, httpVersion: .http1_1)
        journal.complete(second, with: InteractionResult(stubName: "two", status: 201, headers: ["A": "b"], bodyBytesSent: 9, outcome: .completed))
        XCTAssertEqual(journal.interactions.map(\.request.path), ["/1", "/2"])
        XCTAssertEqual(journal.interactions.map(\.outcome), [.inFlight, .completed])
        let entry = journal.interaction(id: second)
        XCTAssertEqual(entry?.stubName, "two")
        XCTAssertEqual(entry?.status, 201)
        XCTAssertEqual(entry?.bodyBytesSent, 9)
        XCTAssertEqual(entry?.redirectedFrom, first)
        XCTAssertEqual(entry?.responseHeaders["a"], "b")
    }

    func testQueriesByMatcherAndUnmatched() {
        let journal = Journal()
        for path in ["/a.png", "/b.webp", "/c.png"] {
            let id = journal.open(request(path), transport: .inProcess, httpVersion: .http1_1)
            journal.complete(id, with: InteractionResult(stubName: path == "/b.webp" ? nil : "s", status: nil, outcome: path == "/b.webp" ? .unmatched : .completed))
        }
        XCTAssertEqual(journal.count(matching: .pathExtension("png")), 2)
        XCTAssertEqual(journal.interactions(matching: .pathExtension("png")).map(\.request.path), ["/a.png", "/c.png"])
        XCTAssertEqual(journal.unmatched.map(\.request.path), ["/b.webp"])
        journal.clear()
        XCTAssertEqual(journal.count, 0)
    }

    func testWaitReturnsOnceEnoughRequestsArrive() async throws {
        let journal = Journal()
        _ = journal.open(request("/a.png"), transport: .inProcess, httpVersion: .http1_1)
        Task {
            try await Task.sleep(for: .milliseconds(50))
            _ = journal.open(request("/b.png"), transport: .inProcess, httpVersion: .http1_1)
            _ = journal.open(request("/a.png"), transport: .inProcess, httpVersion: .http1_1)
        }
        try await journal.wait(for: .path("/a.png"), count: 2, timeout: .seconds(10))
        XCTAssertEqual(journal.count(matching: .path("/a.png")), 2)
        try await journal.wait(for: .path("/a.png"), count: 1, timeout: .milliseconds(1))
    }

    /// A limit of 0 (`--no-request-journal`) keeps nothing and counts nothing as dropped, while a
    /// wait already running still sees the requests arrive.
    func testALimitOfZeroKeepsNothingButWaitsSeeRequests() async throws {
        let journal = Journal(limit: 0)
        let waiting = Task { try await journal.wait(for: .path("/a.png"), count: 2, timeout: .seconds(10)) }
        try await Task.sleep(for: .milliseconds(50))
        let first = journal.open(request("/a.png"), transport: .server, httpVersion: .http1_1)
        _ = journal.open(request("/a.png"), transport: .server, httpVersion: .http1_1)
        journal.complete(first, with: InteractionResult(stubName: "a", status: 200, outcome: .completed))
        try await waiting.value
        XCTAssertEqual(journal.count, 0)
        XCTAssertEqual(journal.droppedCount, 0)
        XCTAssertEqual(journal.inFlightCount, 0)
        XCTAssertNil(journal.interaction(id: first))
    }

    func testWaitTimesOutWithAMessageSayingWhatItSaw() async {
        let journal = Journal()
        _ = journal.open(request("/a.png"), transport: .inProcess, httpVersion: .http1_1)
        do {
            try await journal.wait(for: .path("/a.png"), count: 3, timeout: .milliseconds(100))
            XCTFail("expected a timeout")
        } catch {
            XCTAssertEqual("\(error)", "timed out after 100ms waiting for 3 request(s) matching path is /a.png; saw 1")
        }
    }

    func testLimitDropsTheOldestAndCountsThem() {
        let journal = Journal(limit: 3)
        for i in 1...5 {
            _ = journal.open(request("/\(i)"), transport: .server, httpVersion: .http1_1)
        }
        XCTAssertEqual(journal.interactions.map(\.request.path), ["/3", "/4", "/5"])
        XCTAssertEqual(journal.droppedCount, 2)
        XCTAssertNil(journal.interaction(id: 1))
        XCTAssertEqual(journal.interaction(id: 4)?.request.path, "/4")
    }

    func testConcurrentRecordingLosesNothing() async {
        let journal = Journal()
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<20 {
                group.addTask {
                    for i in 0..<50 {
                        let id = journal.open(request("/\(worker)/\(i)"), transport: .server, httpVersion: .http1_1)
                        journal.complete(id, with: InteractionResult(stubName: "s", status: 200, outcome: .completed))
                    }
                }
            }
        }
        XCTAssertEqual(journal.count, 1_000)
        XCTAssertEqual(Set(journal.interactions.map(\.id)), Set(1...1_000))
        XCTAssertEqual(Set(journal.interactions.map(\.request.path)).count, 1_000)
        XCTAssertTrue(journal.interactions.allSatisfy { $0.outcome == .completed })
    }
}
