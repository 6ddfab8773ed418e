import Foundation
import Understudy
import UnderstudyServer
import UnderstudyTestSupport
import XCTest

/// Faults by phase over HTTP/2 (h2c by prior knowledge), as clients nobody here wrote meet
/// them: Python's `h2` library over a raw socket (the RST_STREAM code, the DATA bytes before
/// it, and a stream beside each fault that must go on), nghttp's frame log, httpx's exception
/// class, and the journal's record of each.
final class HTTP2FaultPhaseTests: XCTestCase {
    struct Case {
        let path: String
        let response: StubResponse
        var method = "GET"
        /// Bytes of request body sent, if any.
        var upload = 0
        /// What `h2` saw: the status (`-` for none), DATA bytes, and how the stream ended.
        let seen: String
        let outcome: String
        let bodyBytesSent: Int
    }

    static let body = Data(repeating: 0x61, count: 5_000)

    /// The stream-level phases, each beside a plain stream on the same connection.
    static let cases: [Case] = [
        Case(path: "/after-request", response: .data(body).faulted(.disconnectAfterRequest),
             seen: "- 0 INTERNAL_ERROR", outcome: "fault disconnect-after-request", bodyBytesSent: 0),
        Case(path: "/request-body", response: .data(body).faulted(.disconnectDuringRequestBody(after: 100)), method: "POST", upload: 2_000,
             seen: "- 0 INTERNAL_ERROR", outcome: "fault disconnect-during-request-body(after: 100)", bodyBytesSent: 0),
        Case(path: "/response-body", response: .data(body).faulted(.disconnectDuringResponseBody(after: 100)),
             seen: "200 100 INTERNAL_ERROR", outcome: "fault disconnect-during-response-body(after: 100)", bodyBytesSent: 100),
        Case(path: "/reset-body", response: .data(body).faulted(.resetDuringResponseBody(after: 700)),
             seen: "200 700 INTERNAL_ERROR", outcome: "fault reset-during-response-body(after: 700)", bodyBytesSent: 700),
        Case(path: "/timeout", response: .data(body).faulted(.timeout(after: .milliseconds(300))),
             seen: "- 0 INTERNAL_ERROR", outcome: "fault timeout(after: 300ms)", bodyBytesSent: 0),
        Case(path: "/shutdown-input", response: .data(body).faulted(.shutdownInputAtEnd),
             seen: "200 5000 ended", outcome: "fault shutdown-input-at-end", bodyBytesSent: 5_000),
        Case(path: "/slow-close", response: .data(body).faulted(.slowClose(.milliseconds(300))),
             seen: "200 5000 ended", outcome: "fault slow-close(300ms)", bodyBytesSent: 5_000),
    ]

    private static func stubs() -> StubRegistry {
        let stubs = StubRegistry()
        for item in cases { stubs.stub(.path(item.path), named: String(item.path.dropFirst()), response: item.response) }
        stubs.stub(.path("/ok"), named: "ok", response: .text("fine"))
        stubs.stub(.path("/shutdown-output"), named: "shutdown-output", response: .data(body).faulted(.shutdownOutputAtEnd))
        return stubs
    }

    /// One connection for every case: each faulted stream opened together with a plain one
    /// (`beside`), a plain stream after them all, then `shutdown-output-at-end`, which ends
    /// the connection with GOAWAY. Prints per stream its path, status, DATA bytes, how it ended
    /// (RST_STREAM's code, or `ended`) and the milliseconds until then.
    static let h2Script = #"""
    import socket, sys, time
    import h2.config, h2.connection, h2.errors, h2.events
    sock = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
    sock.settimeout(10)
    conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
    conn.initiate_connection()
    goaway = []

    def request(path, method="GET", upload=0):
        sid = conn.get_next_available_stream_id()
        headers = [(":method", method), (":path", path), (":scheme", "http"), (":authority", "img.test")]
        if upload:
            headers.append(("content-length", str(upload)))
        conn.send_headers(sid, headers, end_stream=not upload)
        if upload:
            conn.send_data(sid, b"u" * upload, end_stream=True)
        return sid

    def run(streams):
        state = {sid: {"status": "-", "data": 0, "end": None, "ms": 0} for sid in streams}
        start = time.monotonic()
        sock.sendall(conn.data_to_send())
        while any(s["end"] is None for s in state.values()):
            data = sock.recv(65536)
            if not data:
                break
            for event in conn.receive_data(data):
                if isinstance(event, h2.events.ConnectionTerminated):
                    goaway.append("goaway last=%d %s" % (event.last_stream_id, h2.errors.ErrorCodes(event.error_code).name))
                    continue
                s = state.get(getattr(event, "stream_id", None))
                if s is None:
                    continue
                if isinstance(event, h2.events.ResponseReceived):
                    s["status"] = dict(event.headers)[b":status"].decode()
                elif isinstance(event, h2.events.DataReceived):
                    s["data"] += len(event.data)
                    conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                elif isinstance(event, h2.events.StreamEnded):
                    s["end"] = "ended"
                elif isinstance(event, h2.events.StreamReset):
                    s["end"] = h2.errors.ErrorCodes(event.error_code).name
                if s["end"] and not s["ms"]:
                    s["ms"] = int((time.monotonic() - start) * 1000)
            sock.sendall(conn.data_to_send())
        return state

    def show(label, s):
        print("%s %s %d %s %d" % (label, s["status"], s["data"], s["end"], s["ms"]))
        sys.stdout.flush()

    for spec in sys.argv[2:]:
        path, method, upload = spec.split("|")
        faulted, beside = request(path, method, int(upload)), request("/ok")
        state = run([faulted, beside])
        show(path, state[faulted])
        show("beside", state[beside])
    after = request("/ok")
    show("after", run([after])[after])
    last = request("/shutdown-output")
    show("/shutdown-output", run([last])[last])
    while not goaway:
        data = sock.recv(65536)
        if not data:
            break
        for event in conn.receive_data(data):
            if isinstance(event, h2.events.ConnectionTerminated):
                goaway.append("goaway last=%d %s" % (event.last_stream_id, h2.errors.ErrorCodes(event.error_code).name))
    print(goaway[0] if goaway else "no goaway")
    sock.settimeout(3)
    print("closed" if sock.recv(65536) == b"" else "open")
    """#

    func testEachPhaseAsH2SeesItWhileItsNeighbourStreamGoesOn() async throws {
        let python = try venvPython()
        let stubs = Self.stubs()
        try await withServer(stubs) { server in
            let specs = Self.cases.map { "\($0.path)|\($0.method)|\($0.upload)" }
            let result = try UnderstudyServerTests.run("timeout", ["-s", "KILL", "60", python, "-c", Self.h2Script, String(server.port)] + specs)
            XCTAssertEqual(result.status, 0, result.stderr)
            let lines = result.text.split(separator: "\n").map(String.init)
            XCTAssertEqual(lines.count, Self.cases.count * 2 + 4, result.text + result.stderr)
            func fields(_ line: String) -> String { line.split(separator: " ").dropLast().joined(separator: " ") }
            for (index, item) in Self.cases.enumerated() where index * 2 + 1 < lines.count {
                XCTAssertEqual(fields(lines[index * 2]), "\(item.path) \(item.seen)", lines[index * 2])
                XCTAssertEqual(fields(lines[index * 2 + 1]), "beside 200 4 ended", "the stream beside \(item.path) went on: \(result.text)")
            }
            let tail = Array(lines.suffix(4))
            XCTAssertEqual(tail.first.map(fields), "after 200 4 ended", "the connection serves new streams after the faults: \(result.text)")
            XCTAssertEqual(tail.dropFirst().first.map(fields), "/shutdown-output 200 5000 ended", result.text)
            XCTAssertEqual(tail.dropFirst(2).first, "goaway last=\(2 * (Self.cases.count * 2 + 2) - 1) NO_ERROR", "shutdown-output-at-end says GOAWAY after the answer")
            XCTAssertEqual(tail.last, "closed", result.text)
            if let timeout = lines.first(where: { $0.hasPrefix("/timeout ") }), let ms = timeout.split(separator: " ").last.flatMap({ Int($0) }) {
                XCTAssertGreaterThanOrEqual(ms, 280, "the reset comes after the time: \(timeout)")
                XCTAssertLessThan(ms, 2_000, timeout)
            }
        }
        let journal = try await settled(stubs, count: Self.cases.count * 2 + 2)
        for item in Self.cases {
            let entry = journal.first { $0.request.path == item.path }
            XCTAssertEqual(entry?.outcome.description, item.outcome, item.path)
            XCTAssertEqual(entry?.bodyBytesSent, item.bodyBytesSent, item.path)
            XCTAssertEqual(entry?.httpVersion, .http2, item.path)
        }
        XCTAssertEqual(journal.filter { $0.request.path == "/ok" }.map(\.outcome.description), Array(repeating: "completed", count: Self.cases.count + 1))
        XCTAssertEqual(journal.first { $0.request.path == "/shutdown-output" }?.outcome.description, "fault shutdown-output-at-end")
        let connections = Set(journal.compactMap(\.connection))
        XCTAssertEqual(connections.count, 1, "every stream came on one connection")
    }

    func testNghttpLogsTheDataBeforeTheReset() async throws {
        let stubs = Self.stubs()
        try await withServer(stubs) { server in
            let result = try UnderstudyServerTests.run("timeout", ["-s", "KILL", "20", "nghttp", "-v", server.baseURL.absoluteString + "/response-body"])
            let log = result.text
            XCTAssertTrue(log.contains(":status: 200"), log)
            XCTAssertTrue(log.contains("recv DATA frame <length=100, flags=0x00, "), log)
            XCTAssertTrue(log.contains("recv RST_STREAM frame <length=4, flags=0x00, "), log)
            XCTAssertTrue(log.contains("(error_code=INTERNAL_ERROR(0x02))"), log)
            XCTAssertFalse(log.contains("recv GOAWAY"), "the connection is not ended: \(log)")
        }
        let journal = try await settled(stubs, count: 1)
        XCTAssertEqual(journal.map(\.outcome.description), ["fault disconnect-during-response-body(after: 100)"])
    }

    /// httpx over HTTP/2 by prior knowledge: a reset stream is a `RemoteProtocolError`, a
    /// whole answer is read as such.
    func testHttpxMeetsAResetStreamAsARemoteProtocolError() async throws {
        let python = try venvPython()
        let script = #"""
        import sys, httpx
        with httpx.Client(http1=False, http2=True, timeout=5) as client:
            for path in sys.argv[2:]:
                try:
                    response = client.get(sys.argv[1] + path)
                    print("ok %s %d %d" % (response.http_version, response.status_code, len(response.content)))
                except Exception as error:
                    print(type(error).__name__)
        """#
        try await withServer(Self.stubs()) { server in
            let paths = ["/after-request", "/response-body", "/timeout", "/ok", "/slow-close"]
            let result = try UnderstudyServerTests.run("timeout", ["-s", "KILL", "30", python, "-c", script, server.baseURL.absoluteString] + paths)
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertEqual(result.text.split(separator: "\n").map(String.init), [
                "RemoteProtocolError", "RemoteProtocolError", "RemoteProtocolError", "ok HTTP/2 200 4", "ok HTTP/2 200 5000",
            ])
        }
    }

    private func venvPython() throws -> String {
        let python = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".venv/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: python) else {
            return try XCTUnwrap(nil, "no \(python): run `make test-deps`, which installs httpx[http2] (and with it h2) into .venv")
        }
        return python
    }

    private func settled(_ stubs: StubRegistry, count: Int) async throws -> [Interaction] {
        for _ in 0..<100 {
            let interactions = stubs.journal.interactions
            if interactions.count >= count, interactions.allSatisfy({ $0.outcome != .inFlight }) { return interactions }
            try await Task.sleep(for: .milliseconds(50))
        }
        return stubs.journal.interactions
    }
}
