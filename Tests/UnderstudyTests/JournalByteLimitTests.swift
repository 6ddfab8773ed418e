import Foundation
@testable import Understudy
import XCTest

/// The journal is bounded in bytes as well as entries: requests whose headers differ every time
/// (a `traceparent`) cost what they hold, the oldest go first and are counted, and what is read
/// back is exactly what arrived.
final class JournalByteLimitTests: XCTestCase {
    /// A request whose `traceparent` differs each time, as W3C tracing clients send.
    private func traced(_ n: Int, path: String = "/a.png") throws -> StubRequest {
        let trace = String(format: "00-%032x-%016x-01", n, n)
        return try XCTUnwrap(StubRequest(
            method: "GET", scheme: "http", authority: "127.0.0.1:8080", target: path,
            headers: ["Host": "127.0.0.1:8080", "traceparent": trace, "User-Agent": "ImageClient/1.0 (Linux)"], body: nil
        ))
    }

    func testTheByteBoundDropsTheOldestEntriesAndCountsThem() throws {
        let journal = Journal(limit: 100_000, byteLimit: 64 * 1024)
        for n in 1...2_000 {
            let id = journal.open(try traced(n), transport: .server, httpVersion: .http1_1)
            journal.complete(id, with: InteractionResult(stubName: "a", status: 200, outcome: .completed))
        }
        XCTAssertLessThanOrEqual(journal.byteCount, 64 * 1024)
        XCTAssertGreaterThan(journal.count, 100, "an entry with its own headers costs a few hundred bytes, not kilobytes")
        XCTAssertLessThan(journal.count, 1_000, "the byte bound, not the entry limit, held it")
        XCTAssertEqual(journal.droppedCount + journal.count, 2_000, "every entry kept or counted as dropped")
        let entries = journal.interactions
        XCTAssertEqual(entries.map(\.id), Array((2_001 - journal.count)...2_000), "the newest are kept")
        XCTAssertEqual(entries.map(\.request), try entries.map { try traced($0.id) }, "headers come back exactly")

        journal.byteLimit = 4 * 1024
        XCTAssertLessThanOrEqual(journal.byteCount, 4 * 1024, "lowering the bound drops at once")
        XCTAssertEqual(journal.droppedCount + journal.count, 2_000)
        journal.clear()
        XCTAssertEqual(journal.byteCount, 0)
    }

    /// Headers repeated from the last requests are stored once, so only what an entry holds of
    /// its own counts: identical requests cost a fraction of traced ones.
    func testRepeatedHeadersAreSharedAndCountedOnce() throws {
        let same = Journal(), traced = Journal()
        for n in 1...1_000 {
            _ = same.open(try self.traced(0), transport: .server, httpVersion: .http1_1)
            _ = traced.open(try self.traced(n), transport: .server, httpVersion: .http1_1)
        }
        let perSame = same.byteCount / 1_000, perTraced = traced.byteCount / 1_000
        XCTAssertEqual(perSame, JournalRecord.size, "nothing of its own beyond the record")
        XCTAssertGreaterThan(perTraced, perSame + 100, "the packed headers: \(perTraced) against \(perSame)")
        XCTAssertLessThan(perTraced, perSame + 200, "one allocation of about their wire size: \(perTraced)")
    }

    /// A header value longer than 127 bytes (two length bytes), non-ASCII text and repeated
    /// names come back as they went in, in order.
    func testPackedHeadersComeBackExactly() {
        let headers: HeaderFields = HeaderFields([
            ("Cookie", String(repeating: "session=abc; ", count: 40)), ("X-Name", "café ☕"), ("Accept", "image/avif"),
            ("accept", "image/webp"), ("Empty", ""),
        ])
        XCTAssertEqual(PackedHeaders(headers).headers.fields, headers.fields)
        XCTAssertEqual(PackedHeaders([:]).headers.fields, [])
        XCTAssertEqual(PackedHeaders([:]).heapBytes, 0)
    }
}
