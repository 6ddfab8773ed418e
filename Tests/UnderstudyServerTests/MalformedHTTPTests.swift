import Foundation
import Understudy
import UnderstudyServer
import XCTest
import UnderstudyTestSupport

/// Hostile and broken HTTP/1.1 on raw sockets. Every case ends in 400, 413, 431 or a close,
/// never a crash or a hang, and after each one a well-formed request on another connection is
/// still answered; the journal and the admin API still work at the end.
final class MalformedHTTPTests: XCTestCase {
    /// One malformed input and what the server must do with it.
    struct Case {
        let name: String
        let bytes: [UInt8]
        let expected: String
        /// A second acceptable outcome, where the kernel's timing decides between two.
        let alternative: String?

        init(_ name: String, _ text: String, _ expected: String, or alternative: String? = nil) {
            self.init(name, Array(text.utf8), expected, or: alternative)
        }

        init(_ name: String, _ bytes: [UInt8], _ expected: String, or alternative: String? = nil) {
            self.name = name
            self.bytes = bytes
            self.expected = expected
            self.alternative = alternative
        }
    }

    static let badRequest = "400 Bad Request, then close"
    static let tooLarge = "431 Request Header Fields Too Large, then close"
    static let payloadTooLarge = "413 Payload Too Large, then close"
    /// A FIN or, when the server closed with the client's bytes still unread, an RST.
    static let closed = "close without a response"

    static var cases: [Case] {
        let head = "Host: a\r\n"
        let manyHeaders = (0..<10_000).map { "X-\($0): v\r\n" }.joined()
        let countOverLimit = (0..<300).map { "X-\($0): v\r\n" }.joined()
        let countAtLimit = (0..<254).map { "X-\($0): v\r\n" }.joined()  // + Host + Connection = 256
        return [
            Case("garbage request line", "HELLO WORLD\r\n\r\n", badRequest),
            Case("binary garbage", [0xFF, 0x00, 0x13, 0x37] + Array(repeating: 0xAB, count: 60) + Array("\r\n\r\n".utf8), badRequest),
            Case("request line without a version", "GET /ok\r\n\(head)\r\n", badRequest),
            Case("HTTP/9.9", "GET /ok HTTP/9.9\r\n\(head)\r\n", badRequest),
            Case("bad characters in the method", "G@T /ok HTTP/1.1\r\n\(head)\r\n", badRequest),
            Case("unknown method", "FROB /ok HTTP/1.1\r\n\(head)\r\n", badRequest),
            Case("control character in the URI", "GET /o\u{01}k HTTP/1.1\r\n\(head)\r\n", badRequest),
            Case("spaces inside the URI", "GET /a b c HTTP/1.1\r\n\(head)\r\n", badRequest),
            Case("100 KiB URI", "GET /\(String(repeating: "a", count: 100 * 1024)) HTTP/1.1\r\n\(head)\r\n", tooLarge),
            Case("10,000 header fields", "GET /ok HTTP/1.1\r\n\(head)\(manyHeaders)\r\n", tooLarge),
            Case("256 header fields (at the limit: served)", "GET /ok HTTP/1.1\r\n\(head)Connection: close\r\n\(countAtLimit)\r\n", "200 OK, then close"),
            Case("300 header fields (count limit 256)", "GET /ok HTTP/1.1\r\n\(head)\(countOverLimit)\r\n", tooLarge),
            Case("one 81 KiB header line", "GET /ok HTTP/1.1\r\n\(head)X-Big: \(String(repeating: "b", count: 81 * 1024))\r\n\r\n", tooLarge),
            Case("header line without a colon", "GET /ok HTTP/1.1\r\n\(head)NoColonHere\r\n\r\n", badRequest),
            Case("space before the colon", "GET /ok HTTP/1.1\r\nHost : a\r\n\r\n", badRequest),
            Case("obs-fold continuation line", "GET /ok HTTP/1.1\r\n\(head)X-A: 1\r\n  folded\r\n\r\n", badRequest),
            Case("NUL in a header value", "GET /ok HTTP/1.1\r\n\(head)X-A: a\u{0}b\r\n\r\n", badRequest),
            Case("bare CR in a header value", "GET /ok HTTP/1.1\r\n\(head)X-A: a\rb\r\n\r\n", badRequest),
            Case("two different Content-Lengths", "POST /ok HTTP/1.1\r\n\(head)Content-Length: 5\r\nContent-Length: 6\r\n\r\nhello!", badRequest),
            Case("Content-Length with Transfer-Encoding", "POST /ok HTTP/1.1\r\n\(head)Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", badRequest),
            Case("negative Content-Length", "POST /ok HTTP/1.1\r\n\(head)Content-Length: -5\r\n\r\nhello", badRequest),
            Case("Content-Length beyond 64 bits", "POST /ok HTTP/1.1\r\n\(head)Content-Length: 99999999999999999999999\r\n\r\nhello", badRequest),
            Case("Content-Length over --max-body", "POST /ok HTTP/1.1\r\n\(head)Content-Length: 1000000000000\r\n\r\nhello", payloadTooLarge),
            Case("chunk size not hexadecimal", "POST /ok HTTP/1.1\r\n\(head)Transfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n", badRequest),
            Case("chunk data without its CRLF", "POST /ok HTTP/1.1\r\n\(head)Transfer-Encoding: chunked\r\n\r\n5\r\nhelloXX0\r\n\r\n", badRequest),
            Case("1 MiB chunk extension", "POST /ok HTTP/1.1\r\n\(head)Transfer-Encoding: chunked\r\n\r\n5;\(String(repeating: "e", count: 1 << 20))\r\nhello\r\n0\r\n\r\n", closed),
            // The 413 goes out with a lingering close (output first), so the unread rest of the
            // body never turns the close into an RST.
            Case("chunked body growing past --max-body", "POST /ok HTTP/1.1\r\n\(head)Transfer-Encoding: chunked\r\n\r\n" + String(repeating: "100\r\n\(String(repeating: "c", count: 256))\r\n", count: 8), payloadTooLarge),
            Case("unknown Transfer-Encoding", "POST /ok HTTP/1.1\r\n\(head)Transfer-Encoding: gzip, chunked, rot13\r\n\r\nhello", badRequest),
            Case("half-close in the middle of a body", "POST /ok HTTP/1.1\r\n\(head)Content-Length: 100\r\n\r\nonly a little", closed),
        ]
    }

    func testMalformedRequestsGet400Or413Or431OrACloseAndTheServerKeepsServing() async throws {
        let stubs = StubRegistry()
        stubs.stub(.path("/ok"), named: "ok", response: .text("ok"))
        stubs.stub(.pathPrefix("/n/")) { request in .text(String(request.path.dropFirst(3))) }
        let configuration = StubServer.Configuration(maxBodySize: 1_000, requestHeadTimeout: .seconds(1))
        try await withServer(stubs, configuration: configuration) { server in
            var table: [(String, String)] = []
            var witnessed = 0
            func witness(_ after: String, file: StaticString = #filePath, line: UInt = #line) throws {
                let socket = try RawSocket(port: server.port)
                socket.send("GET /ok HTTP/1.1\r\nHost: witness\r\nConnection: close\r\n\r\n")
                let (responses, end) = socket.readResponses()
                XCTAssertEqual(responses.map(\.summary), ["200 OK ok"], "a well-formed request after \(after)", file: file, line: line)
                XCTAssertEqual(end, .closed, "Connection: close honoured after \(after)", file: file, line: line)
                witnessed += 1
            }

            for item in Self.cases {
                let socket = try RawSocket(port: server.port)
                socket.send(item.bytes)
                if item.name.hasPrefix("half-close") { shutdown(socket.fd, Int32(SHUT_WR)) }
                let (responses, end) = socket.readResponses()
                let observed = Self.describe(responses, end)
                if observed != item.alternative {
                    XCTAssertEqual(observed, item.expected, item.name)
                }
                if let body = responses.first?.body, responses.first?.status == 431 {
                    XCTAssertEqual(body, "request header fields too large: at most 256 header fields and 81920 bytes of names and values\n", item.name)
                }
                if let refused = responses.first?.status, [400, 413, 431].contains(refused) {
                    // Journaled like any request, with the status sent and its reason.
                    let entry = stubs.journal.interactions.last { $0.status == refused && $0.stubName == nil }
                    XCTAssertNotNil(entry, "\(item.name): the \(refused) is in the journal")
                    if case .failed(let reason)? = entry?.outcome {
                        XCTAssertEqual(reason + "\n", responses.first?.body, item.name)
                    } else {
                        XCTFail("\(item.name): outcome \(String(describing: entry?.outcome))")
                    }
                }
                table.append((item.name, observed))
                try witness(item.name)
            }

            // Pipelining abuse: 300 requests in one write are all answered, in order.
            do {
                let socket = try RawSocket(port: server.port)
                socket.send((1...300).map { "GET /n/\($0) HTTP/1.1\r\nHost: p\r\n\r\n" }.joined())
                let responses = socket.readResponses(count: 300)
                XCTAssertEqual(responses.map(\.summary), (1...300).map { "200 OK \($0)" })
                table.append(("300 pipelined requests in one write", "all 300 answered 200, in request order"))
                try witness("300 pipelined requests")
            }

            // A bad request in the middle of a pipeline: the one before it is answered, then 400 and a close.
            do {
                let socket = try RawSocket(port: server.port)
                socket.send("GET /n/1 HTTP/1.1\r\nHost: p\r\n\r\nGARBAGE\r\n\r\nGET /n/3 HTTP/1.1\r\nHost: p\r\n\r\n")
                let (responses, end) = socket.readResponses()
                XCTAssertEqual(responses.map(\.summary), ["200 OK 1", "400 Bad Request bad request: invalid HTTP method\n"])
                XCTAssertEqual(end, .closed)
                table.append(("a bad request in the middle of a pipeline", "the request before it answered 200, then 400 Bad Request, then close"))
                try witness("a bad pipeline")
            }

            // Slowloris: a head one byte per 100 ms never completes within the 1 s head timeout.
            do {
                let socket = try RawSocket(port: server.port)
                let trickle = Array("GET /ok HTTP/1.1\r\nHost: slow\r\nX-Padding: \(String(repeating: "s", count: 40))\r\n\r\n".utf8)
                var sent = 0
                for byte in trickle {
                    guard socket.send([byte]) else { break }
                    sent += 1
                    if sent % 5 == 0 { try witness("a slowloris trickle in progress") }
                    try await Task.sleep(for: .milliseconds(100))
                }
                XCTAssertLessThan(sent, trickle.count, "the server closed the trickling connection before the head was complete")
                let (responses, end) = socket.readResponses()
                let observed = Self.describe(responses, end)
                XCTAssertEqual(observed, Self.closed, "slowloris")
                // What the client sent before the timeout is journaled, the reason with it.
                // About ten bytes come in a second (fewer on a busy machine): the request line, cut short.
                let timedOut = Interaction.Outcome.failed("request head not received within 1s")
                let trickled = try XCTUnwrap(stubs.journal.interactions.last { $0.outcome == timedOut }, "the slowloris is journaled")
                let read = String(decoding: trickle.prefix(sent), as: UTF8.self)
                XCTAssertTrue(read.hasPrefix(trickled.request.method) || trickled.request.method == "UNKNOWN", "\(trickled.request.method) from \(read.debugDescription)")
                XCTAssertTrue("/ok".hasPrefix(trickled.request.path), "\(trickled.request.path) from \(read.debugDescription)")
                XCTAssertNil(trickled.status, "nothing was answered")
                XCTAssertEqual(trickled.outcome, .failed("request head not received within 1s"))
                table.append(("slowloris: the head one byte per 100 ms (head timeout 1 s)", observed))
            }

            // An idle connection that never sends a byte is closed after the head timeout too.
            do {
                let socket = try RawSocket(port: server.port)
                try witness("an idle connection opened")
                let (responses, end) = socket.readResponses()
                let observed = Self.describe(responses, end)
                XCTAssertEqual(observed, Self.closed, "idle")
                table.append(("idle connection, no byte sent (head timeout 1 s)", observed))
            }

            // A keep-alive connection that was used is closed once idle for the head timeout.
            do {
                let socket = try RawSocket(port: server.port)
                socket.send("GET /ok HTTP/1.1\r\nHost: k\r\n\r\n")
                let (responses, end) = socket.readResponses()
                XCTAssertEqual(responses.map(\.summary), ["200 OK ok"])
                XCTAssertEqual(end, .closed)
                table.append(("keep-alive connection left idle after a response (head timeout 1 s)", "200 OK, then close once idle"))
            }

            // A client that closes in the middle of its body: nothing is dispatched or journaled.
            do {
                let before = stubs.journal.count
                let socket = try RawSocket(port: server.port)
                socket.send("POST /n/early HTTP/1.1\r\nHost: e\r\nContent-Length: 1000\r\n\r\nabc")
                shutdown(socket.fd, Int32(SHUT_RDWR))
                try witness("an early close mid-body")
                XCTAssertEqual(stubs.journal.count(matching: .path("/n/early")), 0)
                XCTAssertEqual(stubs.journal.count, before + 1, "only the witness")
                table.append(("client closes in the middle of a body", "nothing dispatched or journaled; the server carries on"))
            }

            // The journal and the admin API are intact.
            XCTAssertEqual(stubs.journal.count(matching: .path("/ok") && .header("Host", value: "witness")), witnessed)
            XCTAssertEqual(stubs.journal.count(matching: .pathPrefix("/n/")), 301)
            let health = try RawSocket(port: server.port)
            health.send("GET /__admin/health HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
            let (answers, healthEnd) = health.readResponses()
            XCTAssertEqual(answers.first?.status, 200)
            XCTAssertEqual(healthEnd, .closed)
            XCTAssertTrue(answers.first?.body.contains("\"status\"") ?? false, answers.first?.body ?? "")

            XCTAssertGreaterThanOrEqual(table.count, 20)
            print("| case | what the server does |\n| --- | --- |\n" + table.map { "| \($0.0) | \($0.1) |" }.joined(separator: "\n"))
        }
    }

    /// "400 Bad Request, then close" and the like.
    static func describe(_ responses: [RawResponse], _ end: RawSocket.Ending) -> String {
        let statuses = responses.map { "\($0.status) \($0.reason)" }
        let ending: String
        switch end {
        case .closed: ending = "close"
        case .reset: ending = "reset"
        case .timedOut, .satisfied: ending = "the connection left open"
        case .failed: ending = "\(end)"
        }
        if statuses.isEmpty { return end == .closed || end == .reset ? closed : "no response, \(ending)" }
        return statuses.joined(separator: ", ") + ", then " + ending
    }
}

/// One response parsed off a raw socket.
struct RawResponse {
    let status: Int
    let reason: String
    let headers: [String: String]
    let body: String
    var summary: String { "\(status) \(reason) \(body)" }
}

extension RawSocket {
    /// Reads until the peer closes or resets, or nothing arrives for 5 s, and parses what came.
    func readResponses() -> ([RawResponse], Ending) {
        let received = read()
        return (RawResponse.parse(received.bytes), received.ending)
    }

    /// Reads until `count` responses have arrived (or the peer closes, or 5 s of silence).
    func readResponses(count: Int) -> [RawResponse] {
        RawResponse.parse(read(stoppingWhen: { RawResponse.parse($0).count >= count }).bytes)
    }
}

extension RawResponse {
    /// Responses with a Content-Length, one after another; stops at the first incomplete one.
    static func parse(_ bytes: [UInt8]) -> [RawResponse] {
        var responses: [RawResponse] = []
        var index = 0
        let separator: [UInt8] = [13, 10, 13, 10]
        while index < bytes.count {
            guard let headEnd = firstIndex(of: separator, in: bytes, from: index) else { break }
            let head = String(decoding: bytes[index..<headEnd], as: UTF8.self)
            var lines = head.components(separatedBy: "\r\n")
            let statusLine = lines.removeFirst().split(separator: " ", maxSplits: 2).map(String.init)
            guard statusLine.count >= 2, let status = Int(statusLine[1]) else { break }
            var headers: [String: String] = [:]
            for line in lines {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            let length = Int(headers["content-length"] ?? "0") ?? 0
            let bodyStart = headEnd + 4
            guard bodyStart + length <= bytes.count else { break }
            responses.append(RawResponse(
                status: status, reason: statusLine.count > 2 ? statusLine[2] : "", headers: headers,
                body: String(decoding: bytes[bodyStart..<bodyStart + length], as: UTF8.self)
            ))
            index = bodyStart + length
        }
        return responses
    }

    private static func firstIndex(of pattern: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard bytes.count >= pattern.count else { return nil }
        var i = start
        while i <= bytes.count - pattern.count {
            if bytes[i] == pattern[0], Array(bytes[i..<i + pattern.count]) == pattern { return i }
            i += 1
        }
        return nil
    }
}
