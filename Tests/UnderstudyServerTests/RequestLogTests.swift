import Foundation
import Understudy
import UnderstudyServer
import XCTest

/// The request log's lines, exactly, in each format.
final class RequestLogTests: XCTestCase {
    private let time = Date(timeIntervalSince1970: 1_700_000_000.5)

    private func entry(
        url: String = "http://img.example.com/a.webp", stub: String? = "cat", status: Int? = 200, bodySize: Int = 2048,
        outcome: String = "completed", fault: String? = nil, error: String? = nil, durationMs: Double = 12.4
    ) -> JournalEntry {
        JournalEntry(
            id: 7, time: time,
            request: .init(method: "GET", url: url, headers: ["Accept": "image/webp"], bodySize: 0),
            stub: stub,
            response: status.map { .init(status: $0, headers: ["Content-Type": "image/png"], bodySize: bodySize) },
            outcome: outcome, fault: fault, error: error, durationMs: durationMs, transport: "server"
        )
    }

    // MARK: - Text

    func testTextLines() {
        let log = RequestLog(format: .text)
        XCTAssertEqual(log.line(for: entry()), #"GET http://img.example.com/a.webp -> stub "cat" 200 12ms"#)
        XCTAssertEqual(
            log.line(for: entry(url: "http://x.test/b", stub: nil, status: 404, outcome: "unmatched", durationMs: 0.4)),
            "GET http://x.test/b -> unmatched 404 0ms"
        )
        XCTAssertEqual(
            log.line(for: entry(stub: "boom", status: nil, outcome: "fault", fault: "connection-reset", durationMs: 250.6)),
            #"GET http://img.example.com/a.webp -> stub "boom" fault connection-reset 251ms"#
        )
        XCTAssertEqual(
            log.line(for: entry(bodySize: 1024, outcome: "truncated")),
            #"GET http://img.example.com/a.webp -> stub "cat" 200 truncated 12ms"#
        )
        XCTAssertEqual(
            log.line(for: entry(status: nil, outcome: "cancelled")),
            #"GET http://img.example.com/a.webp -> stub "cat" cancelled 12ms"#
        )
        XCTAssertEqual(
            log.line(for: entry(status: 500, outcome: "failed", error: "cannot read cat.png:\nno such file")),
            #"GET http://img.example.com/a.webp -> stub "cat" 500 failed: cannot read cat.png: no such file 12ms"#
        )
        XCTAssertEqual(
            log.line(for: entry(status: nil, outcome: "in-flight")),
            #"GET http://img.example.com/a.webp -> stub "cat" in flight 12ms"#
        )
        XCTAssertEqual(
            log.line(for: entry(stub: nil, status: nil, outcome: "unmatched")),
            "GET http://img.example.com/a.webp -> unmatched no response 12ms"
        )
    }

    func testColouredTextLines() {
        let log = RequestLog(format: .text, colored: true)
        let green = "\u{1B}[32m", cyan = "\u{1B}[36m", yellow = "\u{1B}[33m", red = "\u{1B}[31m", reset = "\u{1B}[0m"
        XCTAssertEqual(log.line(for: entry(status: 200)), "GET http://img.example.com/a.webp -> stub \"cat\" \(green)200\(reset) 12ms")
        XCTAssertEqual(log.line(for: entry(status: 302)), "GET http://img.example.com/a.webp -> stub \"cat\" \(cyan)302\(reset) 12ms")
        XCTAssertEqual(log.line(for: entry(status: 404)), "GET http://img.example.com/a.webp -> stub \"cat\" \(yellow)404\(reset) 12ms")
        XCTAssertEqual(log.line(for: entry(status: 503)), "GET http://img.example.com/a.webp -> stub \"cat\" \(red)503\(reset) 12ms")
        XCTAssertEqual(
            log.line(for: entry(status: nil, outcome: "fault", fault: "no-response")),
            "GET http://img.example.com/a.webp -> stub \"cat\" \(red)fault no-response\(reset) 12ms"
        )
        XCTAssertEqual(
            log.line(for: entry(stub: nil, status: 404, outcome: "unmatched")),
            "GET http://img.example.com/a.webp -> \(red)unmatched\(reset) \(red)404\(reset) 12ms"
        )
        XCTAssertEqual(
            log.line(for: entry(status: nil, outcome: "in-flight")),
            "GET http://img.example.com/a.webp -> stub \"cat\" in flight 12ms", "no colour without a status"
        )
    }

    // MARK: - JSON and quiet

    func testJSONLineIsTheAdminJournalEntry() throws {
        let log = RequestLog(format: .json, colored: true)
        XCTAssertEqual(log.line(for: entry(durationMs: 12.5)), """
            {"durationMs":12.5,"httpVersion":"HTTP/1.1","id":7,"outcome":"completed",\
            "request":{"bodySize":0,"headers":{"Accept":"image/webp"},"method":"GET","url":"http://img.example.com/a.webp"},\
            "response":{"bodySize":2048,"headers":{"Content-Type":"image/png"},"status":200},\
            "stub":"cat","time":"2023-11-14T22:13:20.500Z","transport":"server"}
            """)
        XCTAssertEqual(log.line(for: entry(stub: nil, status: nil, outcome: "fault", fault: "empty-response", durationMs: 3)), """
            {"durationMs":3,"fault":"empty-response","httpVersion":"HTTP/1.1","id":7,"outcome":"fault",\
            "request":{"bodySize":0,"headers":{"Accept":"image/webp"},"method":"GET","url":"http://img.example.com/a.webp"},\
            "stub":null,"time":"2023-11-14T22:13:20.500Z","transport":"server"}
            """)
        var hop = entry(status: 500, outcome: "failed", error: "upstream said no", durationMs: 1)
        hop.redirectedFrom = 6
        XCTAssertEqual(log.line(for: hop), """
            {"durationMs":1,"error":"upstream said no","httpVersion":"HTTP/1.1","id":7,"outcome":"failed","redirectedFrom":6,\
            "request":{"bodySize":0,"headers":{"Accept":"image/webp"},"method":"GET","url":"http://img.example.com/a.webp"},\
            "response":{"bodySize":2048,"headers":{"Content-Type":"image/png"},"status":500},\
            "stub":"cat","time":"2023-11-14T22:13:20.500Z","transport":"server"}
            """)
        let line = try XCTUnwrap(log.line(for: hop))
        XCTAssertFalse(line.contains("\n"))
        XCTAssertEqual(try JSONDecoder().decode(JournalEntry.self, from: Data(line.utf8)), hop, "the JSON decodes back")
    }

    func testQuietPrintsNothing() {
        let log = RequestLog(format: .quiet, colored: true)
        XCTAssertNil(log.line(for: entry()))
        XCTAssertNil(log.journalDropLine(limit: 10, dropped: 3))
    }

    func testJournalDropLines() {
        XCTAssertEqual(
            RequestLog(format: .text).journalDropLine(limit: 100_000, dropped: 5),
            "journal limit 100000 reached: dropped 5 oldest entries"
        )
        XCTAssertEqual(
            RequestLog(format: .text).journalDropLine(limit: 1, dropped: 1),
            "journal limit 1 reached: dropped 1 oldest entry"
        )
        XCTAssertEqual(
            RequestLog(format: .text, colored: true).journalDropLine(limit: 2, dropped: 3),
            "\u{1B}[33mjournal limit 2 reached: dropped 3 oldest entries\u{1B}[0m"
        )
        XCTAssertEqual(
            RequestLog(format: .json).journalDropLine(limit: 100_000, dropped: 5),
            #"{"dropped":5,"event":"journal-limit","limit":100000}"#
        )
        XCTAssertNil(RequestLog(format: .text).journalDropLine(limit: 10, dropped: 0))
    }

    // MARK: - From the journal

    func testLinesForRealJournalInteractions() throws {
        let registry = StubRegistry()
        let request = StubRequest(method: "HEAD", url: URL(string: "http://img.example.com/a.png?w=2")!, headers: HeaderFields([("X-A", "1"), ("x-a", "2")]))
        let id = registry.journal.open(request, transport: .proxy, httpVersion: .http1_1)
        registry.journal.complete(id, with: InteractionResult(
            stubName: nil, status: 200, headers: ["Content-Length": "9"], bodyBytesSent: 0, outcome: .completed
        ))
        let interaction = try XCTUnwrap(registry.journal.interaction(id: id))

        let text = try XCTUnwrap(RequestLog(format: .text).line(for: interaction))
        XCTAssertNotNil(text.range(of: #"^HEAD http://img\.example\.com/a\.png\?w=2 -> unmatched 200 \d+ms$"#, options: .regularExpression), text)

        let json = try XCTUnwrap(RequestLog(format: .json).line(for: interaction))
        let entry = try JSONDecoder().decode(JournalEntry.self, from: Data(json.utf8))
        XCTAssertEqual(entry.id, id)
        XCTAssertEqual(entry.transport, "proxy")
        XCTAssertEqual(entry.request.headers, ["X-A": "1, 2"])
        XCTAssertEqual(entry.response, JournalEntry.Response(status: 200, headers: ["Content-Length": "9"], bodySize: 0))
        XCTAssertGreaterThanOrEqual(entry.durationMs, 0)
        XCTAssertTrue(json.contains(#""stub":null"#))
        XCTAssertTrue(json.contains(#""headers":{"X-A":"1, 2"}"#), json)
    }

    func testFormatsParseFromTheirFlagSpelling() {
        XCTAssertEqual(LogFormat(rawValue: "text"), .text)
        XCTAssertEqual(LogFormat(rawValue: "json"), .json)
        XCTAssertEqual(LogFormat(rawValue: "quiet"), .quiet)
        XCTAssertNil(LogFormat(rawValue: "verbose"))
    }
}
