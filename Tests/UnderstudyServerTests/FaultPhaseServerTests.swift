import Foundation
import Understudy
import UnderstudyServer
import UnderstudyTestSupport
import XCTest

/// Faults by phase on the wire over HTTP/1.1, as real clients meet them: curl's exit code and
/// Python httpx's exception class, and the journal's record of each.
final class FaultPhaseServerTests: XCTestCase {
    struct Case {
        let path: String
        let response: StubResponse
        var method = "GET"
        /// Bytes of request body sent, if any.
        var upload = 0
        /// The client's own timeout, in seconds.
        var timeout = 5
        let curl: Int32
        let httpx: String
        let outcome: String
    }

    static let body = Data(repeating: 0x61, count: 5_000)

    static let cases: [Case] = [
        Case(path: "/after-request", response: .data(body).faulted(.disconnectAfterRequest),
             curl: 52, httpx: "RemoteProtocolError", outcome: "fault disconnect-after-request"),
        Case(path: "/request-body", response: .data(body).faulted(.disconnectDuringRequestBody(after: 100)), method: "POST", upload: 200_000,
             curl: 56, httpx: "ReadError", outcome: "fault disconnect-during-request-body(after: 100)"),
        Case(path: "/response-body", response: .data(body).faulted(.disconnectDuringResponseBody(after: 100)),
             curl: 18, httpx: "RemoteProtocolError", outcome: "fault disconnect-during-response-body(after: 100)"),
        Case(path: "/reset-body", response: .data(body).faulted(.resetDuringResponseBody(after: 100)),
             curl: 56, httpx: "ReadError", outcome: "fault reset-during-response-body(after: 100)"),
        Case(path: "/timeout", response: .data(body).faulted(.timeout(after: .milliseconds(300))),
             curl: 52, httpx: "RemoteProtocolError", outcome: "fault timeout(after: 300ms)"),
        Case(path: "/timeout-long", response: .data(body).faulted(.timeout(after: .seconds(30))), timeout: 1,
             curl: 28, httpx: "ReadTimeout", outcome: "cancelled"),
        Case(path: "/shutdown-output", response: .data(body).faulted(.shutdownOutputAtEnd),
             curl: 0, httpx: "ok", outcome: "fault shutdown-output-at-end"),
        Case(path: "/slow-close", response: .data(body).faulted(.slowClose(.milliseconds(300))),
             curl: 0, httpx: "ok", outcome: "fault slow-close(300ms)"),
        Case(path: "/shutdown-input", response: .data(body).faulted(.shutdownInputAtEnd),
             curl: 0, httpx: "ok", outcome: "fault shutdown-input-at-end"),
        Case(path: "/limit", response: .data(body).faulted(.limitData(1_000)),
             curl: 18, httpx: "RemoteProtocolError", outcome: "fault limit-data(1000)"),
    ]

    private static func stubs() -> StubRegistry {
        let stubs = StubRegistry()
        for item in cases { stubs.stub(.path(item.path), named: String(item.path.dropFirst()), response: item.response) }
        return stubs
    }

    func testEachPhaseEndsCurlWithItsExitCode() async throws {
        let stubs = Self.stubs()
        try await withServer(stubs) { server in
            let upload = try makeTemporaryDirectory("upload").appendingPathComponent("body")
            for item in Self.cases {
                var arguments = ["-o", "/dev/null", server.baseURL.absoluteString + item.path]
                if item.upload > 0 {
                    try Data(count: item.upload).write(to: upload)
                    arguments += ["-X", item.method, "--data-binary", "@" + upload.path]
                }
                let result = try curl(arguments, maxTime: item.timeout)
                XCTAssertEqual(result.status, item.curl, "\(item.path): \(result.stderr)")
            }
            let journal = try await settled(stubs, count: Self.cases.count)
            XCTAssertEqual(journal.map(\.outcome.description), Self.cases.map(\.outcome))
            let byPath = Dictionary(journal.map { ($0.request.path, $0) }, uniquingKeysWith: { first, _ in first })
            XCTAssertNil(byPath["/after-request"]?.status, "no head went out")
            XCTAssertEqual(byPath["/response-body"]?.bodyBytesSent, 100)
            XCTAssertEqual(byPath["/reset-body"]?.status, 200)
            XCTAssertEqual(byPath["/reset-body"]?.bodyBytesSent, 100)
            XCTAssertEqual(byPath["/slow-close"]?.bodyBytesSent, 5_000)
        }
    }

    func testEachPhaseRaisesItsExceptionInHttpx() async throws {
        let python = packageRoot.appendingPathComponent(".venv/bin/python").path
        try await withServer(Self.stubs()) { server in
            let arguments = Self.cases.map { "\($0.path)|\($0.method)|\($0.upload)|\($0.timeout)" }
            let result = try UnderstudyServerTests.run("timeout", ["-s", "KILL", "60", python, "-c", Self.httpxScript, server.baseURL.absoluteString] + arguments)
            XCTAssertEqual(result.status, 0, result.stderr)
            let lines = result.text.split(separator: "\n").map(String.init)
            XCTAssertEqual(lines.count, Self.cases.count, result.text)
            for (item, line) in zip(Self.cases, lines) {
                XCTAssertEqual(line.split(separator: "\t").first.map(String.init), item.httpx, "\(item.path): \(line)")
            }
        }
    }

    /// One fresh httpx client per request (a connection a fault broke is not reused): prints
    /// `ok` or the exception's class, a tab, and its message.
    static let httpxScript = #"""
    import sys, httpx
    base = sys.argv[1]
    for spec in sys.argv[2:]:
        path, method, upload, timeout = spec.split("|")
        try:
            with httpx.Client(timeout=float(timeout)) as client:
                response = client.request(method, base + path, content=b"x" * int(upload) if int(upload) else None)
                print("ok\t%d %d" % (response.status_code, len(response.content)))
        except Exception as error:
            print("%s\t%s" % (type(error).__name__, str(error).replace("\n", " ")))
        sys.stdout.flush()
    """#

    func testLimitDataCountsEveryByteAcrossTheConnectionsAnswers() async throws {
        let stubs = StubRegistry()
        stubs.stub(.path("/small"), named: "small", response: .text("twelve bytes").faulted(.limitData(300)))
        try await withServer(stubs) { server in
            let socket = try RawSocket(port: server.port)
            socket.send("GET /small HTTP/1.1\r\nHost: x\r\n\r\nGET /small HTTP/1.1\r\nHost: x\r\n\r\nGET /small HTTP/1.1\r\nHost: x\r\n\r\n")
            let received = socket.read()
            XCTAssertEqual(received.ending, .closed, "\(received)")
            XCTAssertEqual(received.bytes.count, 300, "\(received)")
            XCTAssertEqual(RawSocket.count(of: Array("twelve bytes".utf8), in: received.bytes), 2, "two whole answers fit, the third is cut: \(received)")
            XCTAssertEqual(RawSocket.count(of: Array("HTTP/1.1 200".utf8), in: received.bytes), 3, "the third is cut in its head: \(received)")
        }
    }

    func testSlowCloseHoldsTheCloseAfterAWholeAnswer() async throws {
        let stubs = StubRegistry()
        stubs.stub(.path("/slow"), named: "slow", response: .text("whole").faulted(.slowClose(.milliseconds(600))))
        try await withServer(stubs) { server in
            let socket = try RawSocket(port: server.port)
            socket.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
            let start = Date()
            let answer = socket.read(until: "whole")
            let answered = Date().timeIntervalSince(start)
            XCTAssertTrue(answer.text.lowercased().contains("connection: close"), answer.text)
            let end = socket.read()
            let closed = Date().timeIntervalSince(start)
            XCTAssertEqual(end.ending, .closed)
            XCTAssertLessThan(answered, 0.4)
            XCTAssertGreaterThanOrEqual(closed, 0.55, "the close is held")
        }
    }

    func testShutdownOutputSendsAFINAfterTheAnswerOnAKeptConnection() async throws {
        let stubs = StubRegistry()
        stubs.stub(.path("/half"), named: "half", response: .text("whole").faulted(.shutdownOutputAtEnd))
        try await withServer(stubs) { server in
            let socket = try RawSocket(port: server.port)
            socket.send("GET /half HTTP/1.1\r\nHost: x\r\n\r\n")
            let received = socket.read()
            XCTAssertEqual(received.ending, .closed, "\(received)")
            XCTAssertTrue(received.text.hasSuffix("whole"), received.text)
            XCTAssertFalse(received.text.lowercased().contains("connection: close"), "unannounced, as MockWebServer's")
        }
    }

    func testShutdownInputLeavesTheNextRequestUnanswered() async throws {
        let stubs = StubRegistry()
        stubs.stub(.path("/deaf"), named: "deaf", response: .text("whole").faulted(.shutdownInputAtEnd))
        try await withServer(stubs) { server in
            let socket = try RawSocket(port: server.port, receiveTimeout: 1)
            socket.send("GET /deaf HTTP/1.1\r\nHost: x\r\n\r\n")
            XCTAssertEqual(socket.read(until: "whole").ending, .satisfied)
            socket.send("GET /deaf HTTP/1.1\r\nHost: x\r\n\r\n")
            let next = socket.read()
            XCTAssertEqual(next.ending, .timedOut, "the connection stays open and silent: \(next)")
            XCTAssertEqual(next.bytes, [], "\(next)")
            XCTAssertEqual(stubs.journal.interactions.count, 1)
            // curl reuses the connection for its second URL and waits out its own limit.
            let url = server.baseURL.absoluteString + "/deaf"
            XCTAssertEqual(try curl(["-o", "/dev/null", "-o", "/dev/null", url, url], maxTime: 2).status, 28)
            XCTAssertEqual(stubs.journal.interactions.count, 2, "curl's second request was never read")
        }
    }

    func testHeadersDelayAndBodyDelayAsARawSocketSeesThem() async throws {
        let stubs = StubRegistry()
        stubs.stub(.path("/split"), named: "split", response: .text("the body").delayed(by: .milliseconds(300)).bodyDelayed(by: .milliseconds(400)))
        try await withServer(stubs) { server in
            let socket = try RawSocket(port: server.port)
            let start = Date()
            socket.send("GET /split HTTP/1.1\r\nHost: x\r\n\r\n")
            let head = socket.read(until: "\r\n\r\n")
            let headTime = Date().timeIntervalSince(start)
            XCTAssertFalse(head.text.contains("the body"), "the head came alone: \(head)")
            let body = socket.read(stoppingWhen: { String(decoding: $0, as: UTF8.self).contains("the body") })
            let bodyTime = Date().timeIntervalSince(start)
            XCTAssertEqual(body.ending, .satisfied, "\(body)")
            XCTAssertGreaterThanOrEqual(headTime, 0.28)
            XCTAssertLessThan(headTime, 0.6)
            XCTAssertGreaterThanOrEqual(bodyTime - headTime, 0.38, "the body waited after the head")
        }
    }

    func testEarlyHintsReachCurlBeforeTheFinalHead() async throws {
        let stubs = StubRegistry()
        let link = "</hero.avif>; rel=preload; as=image"
        stubs.stub(.path("/page"), named: "page", response: .text("page").informational([InformationalHead(status: 103, headers: ["Link": link])]))
        try await withServer(stubs) { server in
            let result = try curl(["-v", "-o", "/dev/null", server.baseURL.absoluteString + "/page"])
            XCTAssertEqual(result.status, 0, result.stderr)
            let lines = result.stderr.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            let early = try XCTUnwrap(lines.firstIndex { $0 == "< HTTP/1.1 103 Early Hints" }, result.stderr)
            let final = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("< HTTP/1.1 200") }, result.stderr)
            XCTAssertLessThan(early, final)
            XCTAssertTrue(lines[early..<final].contains("< Link: \(link)"), result.stderr)
        }
    }

    /// Over HTTP/2 the 103 is a HEADERS frame without END_STREAM before the final one, as curl
    /// (with HTTP/2 by prior knowledge) shows it.
    func testEarlyHintsReachAnHTTP2ClientBeforeTheFinalHead() async throws {
        let stubs = StubRegistry()
        let link = "</hero.avif>; rel=preload; as=image"
        stubs.stub(.path("/page"), named: "page", response: .text("page").informational([InformationalHead(status: 103, headers: ["Link": link])]))
        try await withServer(stubs) { server in
            let result = try curl(["-v", "--http2-prior-knowledge", server.baseURL.absoluteString + "/page"])
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertEqual(result.text, "page")
            let lines = result.stderr.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            let early = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("< HTTP/2 103") }, result.stderr)
            let final = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("< HTTP/2 200") }, result.stderr)
            XCTAssertLessThan(early, final)
            XCTAssertTrue(lines[early..<final].contains("< link: \(link)"), result.stderr)
        }
        XCTAssertEqual(stubs.journal.interactions.map(\.httpVersion), [.http2])
    }

    /// The same bytes again and again on one connection take the server's repeat path, which
    /// must draw each time as the first request did.
    func testARepeatedRequestOnAKeptConnectionDrawsEachTime() async throws {
        let stubs = StubRegistry(seed: 8)
        stubs.stub(.path("/busy.png"), named: "busy", response: .text("ok").status(503, chance: 0.5))
        try await withServer(stubs) { server in
            let socket = try RawSocket(port: server.port)
            var statuses: [String] = []
            for _ in 0..<40 {
                socket.send("GET /busy.png HTTP/1.1\r\nHost: x\r\n\r\n")
                let answer = socket.read(until: "\r\n\r\nok")
                XCTAssertEqual(answer.ending, .satisfied, "\(answer)")
                statuses.append(String(answer.text.prefix(12)))
            }
            XCTAssertEqual(Set(statuses), ["HTTP/1.1 200", "HTTP/1.1 503"])
            let journal = try await settled(stubs, count: 40)
            XCTAssertEqual(journal.map { $0.drawn == [.status] }, statuses.map { $0 == "HTTP/1.1 503" })
        }
    }

    private func settled(_ stubs: StubRegistry, count: Int) async throws -> [Interaction] {
        for _ in 0..<100 {
            let interactions = stubs.journal.interactions
            if interactions.count >= count, interactions.allSatisfy({ $0.outcome != .inFlight }) { return interactions }
            try await Task.sleep(for: .milliseconds(50))
        }
        return stubs.journal.interactions
    }

    private var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }
}
