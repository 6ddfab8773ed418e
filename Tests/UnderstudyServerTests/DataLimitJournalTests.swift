import Foundation
import Understudy
import UnderstudyServer
import UnderstudyTestSupport
import XCTest

/// `limit-data` closes a connection once it has carried its bytes; the journal entry of the
/// answer it cut records the body bytes the client received, counted here from a raw socket
/// (HTTP/1.1) and from the raw frames an HTTP/2 client read, and read back through the journal
/// and the admin API.
final class DataLimitJournalTests: XCTestCase {
    static let body = Data((0..<5_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) })

    func testHTTP1BodyFromMemory() async throws {
        let stubs = StubRegistry()
        stubs.stub(.path("/limit"), named: "limit", response: .data(Self.body).faulted(.limitData(1_000)))
        try await assertHTTP1Limit(stubs)
    }

    /// A file body goes with `sendfile(2)`: the limit cuts a file region.
    func testHTTP1BodyFromAFile() async throws {
        let file = try makeTemporaryDirectory("limit").appendingPathComponent("body.bin")
        try Self.body.write(to: file)
        let stubs = StubRegistry()
        stubs.stub(.path("/limit"), named: "limit", response: StubResponse.file(file).faulted(.limitData(1_000)))
        try await assertHTTP1Limit(stubs)
    }

    /// A paced body goes in slices (2,000 bytes a second here): the limit cuts one of them.
    func testHTTP1PacedBody() async throws {
        let stubs = StubRegistry()
        stubs.stub(.path("/limit"), named: "limit", response: .data(Self.body).throttled(to: .bytesPerSecond(2_000)).faulted(.limitData(1_000)))
        try await assertHTTP1Limit(stubs)
    }

    /// An answer without a body can be the one a limit set earlier on the connection cuts: a
    /// `HEAD` whose head does not fit in what is left is journaled as the fault, not completed.
    func testHTTP1HeadCutByALimitAnEarlierAnswerSet() async throws {
        let stubs = StubRegistry()
        stubs.stub(.path("/limit"), named: "limit", response: .text("small").faulted(.limitData(250)))
        stubs.stub(.path("/other"), named: "other", response: .data(Self.body))
        try await withServer(stubs) { server in
            let socket = try RawSocket(port: server.port)
            socket.send("GET /limit HTTP/1.1\r\nHost: x\r\n\r\nHEAD /other HTTP/1.1\r\nHost: x\r\n\r\n")
            let received = socket.read()
            XCTAssertEqual(received.ending, .closed, "\(received)")
            XCTAssertEqual(received.bytes.count, 250, "\(received)")
            XCTAssertTrue(received.text.hasPrefix("HTTP/1.1 200 OK\r\n"), received.text)
            XCTAssertEqual(received.text.components(separatedBy: "HTTP/1.1 200 OK").count, 3, "the second head began: \(received.text)")
            let deadline = Date().addingTimeInterval(5)
            while stubs.journal.interactions.count < 2, Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
            XCTAssertEqual(stubs.journal.interactions.map(\.request.method), ["GET", "HEAD"])
            XCTAssertEqual(stubs.journal.interactions.map(\.outcome.description), ["completed", "fault limit-data(250)"])
        }
    }

    private func assertHTTP1Limit(_ stubs: StubRegistry, file: StaticString = #filePath, line: UInt = #line) async throws {
        try await withServer(stubs) { server in
            let socket = try RawSocket(port: server.port)
            socket.send("GET /limit HTTP/1.1\r\nHost: x\r\n\r\n")
            let received = socket.read()
            XCTAssertEqual(received.ending, .closed, "\(received)", file: file, line: line)
            XCTAssertEqual(received.bytes.count, 1_000, file: file, line: line)
            let bytes = received.bytes
            let headEnd = try XCTUnwrap((3..<bytes.count).first { Array(bytes[$0 - 3...$0]) == [13, 10, 13, 10] }, file: file, line: line)
            let bodyReceived = bytes.count - headEnd - 1
            XCTAssertEqual(Array(received.bytes.suffix(bodyReceived)), Array(Self.body.prefix(bodyReceived)), file: file, line: line)

            let entry = try await settledEntry(stubs)
            XCTAssertEqual(entry?.outcome.description, "fault limit-data(1000)", file: file, line: line)
            XCTAssertEqual(entry?.bodyBytesSent, bodyReceived, "what the client received, not what was written", file: file, line: line)
            XCTAssertEqual(try adminBodySize(server), bodyReceived, "the admin API's entry", file: file, line: line)
        }
    }

    /// h2 sends the request; the frames that came back are read from the raw bytes, the DATA
    /// frame the limit cut counted for what of it arrived.
    static let h2Script = #"""
    import socket, sys
    import h2.config, h2.connection
    sock = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
    sock.settimeout(10)
    conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
    conn.initiate_connection()
    conn.send_headers(1, [(":method", "GET"), (":path", "/limit"), (":scheme", "http"), (":authority", "img.test")], end_stream=True)
    sock.sendall(conn.data_to_send())
    raw = b""
    while True:
        data = sock.recv(65536)
        if not data:
            break
        raw += data
    offset, body, headers_at = 0, b"", None
    while offset + 9 <= len(raw):
        length, kind = int.from_bytes(raw[offset:offset + 3], "big"), raw[offset + 3]
        stream = int.from_bytes(raw[offset + 5:offset + 9], "big") & 0x7FFFFFFF
        if stream == 1 and kind == 1 and headers_at is None:
            headers_at = offset
        if stream == 1 and kind == 0:
            body += raw[offset + 9:offset + 9 + length]
        offset += 9 + length
    print(len(raw) - headers_at if headers_at is not None else -1, len(body), body.hex())
    """#

    func testHTTP2CountsTheDataThatArrived() async throws {
        let python = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".venv/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: python) else {
            return XCTFail("no \(python): run `make test-deps`, which installs httpx[http2] (and with it h2) into .venv")
        }
        let stubs = StubRegistry()
        stubs.stub(.path("/limit"), named: "limit", response: .data(Self.body).faulted(.limitData(1_000)))
        try await withServer(stubs) { server in
            let result = try UnderstudyServerTests.run("timeout", ["-s", "KILL", "30", python, "-c", Self.h2Script, String(server.port)])
            XCTAssertEqual(result.status, 0, result.stderr)
            let fields = result.text.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            XCTAssertEqual(fields.count, 3, result.text)
            guard fields.count == 3, let sinceHeaders = Int(fields[0]), let dataBytes = Int(fields[1]) else { return }
            XCTAssertEqual(sinceHeaders, 1_000, "the connection carried its limit from the answer's HEADERS on")
            XCTAssertGreaterThan(dataBytes, 0)
            XCTAssertLessThan(dataBytes, Self.body.count)
            XCTAssertEqual(fields[2], Self.body.prefix(dataBytes).map { String(format: "%02x", $0) }.joined())

            let entry = try await settledEntry(stubs)
            XCTAssertEqual(entry?.outcome.description, "fault limit-data(1000)")
            XCTAssertEqual(entry?.httpVersion, .http2)
            XCTAssertEqual(entry?.bodyBytesSent, dataBytes, "what the client received, not what was written")
            XCTAssertEqual(try adminBodySize(server), dataBytes, "the admin API's entry")
        }
    }

    /// `response.bodySize` of the newest entry in `GET /__admin/requests` (Understudy's entry
    /// under `request.understudy`).
    private func adminBodySize(_ server: StubServer) throws -> Int? {
        let result = try curl(["-s", server.baseURL.absoluteString + "/__admin/requests"])
        let list = try XCTUnwrap(JSONSerialization.jsonObject(with: result.stdout) as? [String: Any], result.text)
        let newest = (list["requests"] as? [[String: Any]])?.first
        let entry = (newest?["request"] as? [String: Any])?["understudy"] as? [String: Any]
        return (entry?["response"] as? [String: Any])?["bodySize"] as? Int
    }

    private func settledEntry(_ stubs: StubRegistry) async throws -> Interaction? {
        for _ in 0..<100 {
            if let entry = stubs.journal.interactions.first, entry.outcome != .inFlight { return entry }
            try await Task.sleep(for: .milliseconds(50))
        }
        return stubs.journal.interactions.first
    }
}
