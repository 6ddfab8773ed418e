import Foundation
@testable import Understudy
import XCTest

/// The journal keeps entries compactly and parses requests again when read: what comes back
/// must be exactly what went in.
final class JournalRecordTests: XCTestCase {
    func testRequestsComeBackExactlyAsTheyWentIn() throws {
        let wire: [StubRequest?] = [
            StubRequest(method: "GET", scheme: "http", authority: "127.0.0.1:8080", target: "/cats/1.png?w=200&debug", headers: ["Host": "127.0.0.1:8080", "Accept": "image/webp"], body: nil),
            StubRequest(method: "POST", scheme: "http", authority: "img.example.com", target: "/caf%C3%A9.json", headers: ["host": "img.example.com"], body: Data("{}".utf8)),
            // No Host header: the listener's address was the authority, so the whole URL is kept.
            StubRequest(method: "GET", scheme: "http", authority: "127.0.0.1:9", target: "/no-host", headers: [:], body: nil),
            StubRequest(method: "GET", scheme: "https", authority: "[::1]:8443", target: "/v6.png", headers: ["Host": "[::1]:8443"], body: nil),
        ]
        let requests = try wire.map { try XCTUnwrap($0) } + [
            try XCTUnwrap(StubRequest(method: "DELETE", "https://user@api.example.com:8443/a%20b/c.WEBP?x=1#frag", headers: ["X": "y"])),
            StubRequest(method: "GET", url: try XCTUnwrap(URL(string: "http://h/slow")), timeoutInterval: 2.5),
        ]
        let journal = Journal()
        let ids = requests.map { journal.open($0, transport: .server, httpVersion: .http1_1) }
        for (id, request) in zip(ids, requests) {
            let entry = try XCTUnwrap(journal.interaction(id: id))
            XCTAssertEqual(entry.request, request)
            XCTAssertEqual(entry.request.urlString, request.urlString)
            XCTAssertEqual(entry.request.host, request.host)
            XCTAssertEqual(entry.request.port, request.port)
            XCTAssertEqual(entry.request.path, request.path)
            XCTAssertEqual(entry.request.pathExtension, request.pathExtension)
            XCTAssertEqual(entry.request.queryItems.map { "\($0.name)=\($0.value)" }, request.queryItems.map { "\($0.name)=\($0.value)" })
            XCTAssertEqual(entry.request.timeoutInterval, request.timeoutInterval)
        }
    }

    func testALimitedJournalKeepsIDsResultsAndExtrasAcrossDrops() throws {
        let journal = Journal(limit: 3, keepsBodies: true)
        var ids: [Int] = []
        for n in 1...5 {
            let id = journal.open(try XCTUnwrap(StubRequest("http://h/\(n)")), transport: .server, redirectedFrom: n == 5 ? ids.last : nil, httpVersion: .http1_1)
            ids.append(id)
            journal.complete(id, with: InteractionResult(
                stubName: n == 4 ? nil : "s\(n)", status: n == 4 ? 404 : 200, headers: ["N": "\(n)"], bodyBytesSent: n,
                outcome: n == 4 ? .unmatched : .completed,
                nearMisses: n == 4 ? [NearMiss(stubName: "s1", matchedParts: 1, totalParts: 2, mismatches: [])] : [],
                responseBody: Data(repeating: UInt8(n), count: n)
            ))
        }
        XCTAssertEqual(ids, [1, 2, 3, 4, 5])
        XCTAssertEqual(journal.droppedCount, 2)
        XCTAssertEqual(journal.interactions.map(\.id), [3, 4, 5])
        XCTAssertNil(journal.interaction(id: 2))
        let entries = journal.interactions
        XCTAssertEqual(entries.map(\.request.path), ["/3", "/4", "/5"])
        XCTAssertEqual(entries.map(\.status), [200, 404, 200])
        XCTAssertEqual(entries.map { $0.responseHeaders["N"] }, ["3", "4", "5"])
        XCTAssertEqual(entries.map(\.responseBody), [Data([3, 3, 3]), Data([4, 4, 4, 4]), Data([5, 5, 5, 5, 5])])
        XCTAssertEqual(entries[1].nearMisses.map(\.stubName), ["s1"])
        XCTAssertEqual(entries[2].redirectedFrom, 4)
        XCTAssertEqual(journal.unmatched.map(\.id), [4])
        journal.clear()
        XCTAssertEqual(journal.open(try XCTUnwrap(StubRequest("http://h/6")), transport: .server, httpVersion: .http1_1), 6)
        XCTAssertEqual(journal.interactions.map(\.id), [6])
    }
}
