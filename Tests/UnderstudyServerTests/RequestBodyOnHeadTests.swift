import Foundation
import Understudy
import UnderstudyServer
import UnderstudyTestSupport
import XCTest

/// What the server does with a request's body before reading it, as the stub its head matches
/// says: `Expect: 100-continue` answered with `100 Continue` (by default), refused with the
/// stub's final answer, or ignored; and `disconnect-during-request-body`, which stops reading
/// the body at its point. Seen by curl, a raw socket and Python's `h2`.
final class RequestBodyOnHeadTests: XCTestCase {
    private static func stubs() -> StubRegistry {
        let stubs = StubRegistry()
        stubs.stub(.method("POST") && .path("/upload"), named: "upload", response: .text("stored"))
        stubs.stub(.method("POST") && .path("/refused"), named: "refused", response: .text("too large").status(413).expectContinue(.refuse))
        stubs.stub(.method("POST") && .path("/ignored"), named: "ignored", response: .text("stored late").expectContinue(.ignore))
        stubs.stub(.method("POST") && .path("/cut"), named: "cut", response: .text("never").faulted(.disconnectDuringRequestBody(after: 1_000)))
        return stubs
    }

    private func upload(_ size: Int) throws -> URL {
        let file = try makeTemporaryDirectory("upload").appendingPathComponent("body")
        try Data(repeating: 0x75, count: size).write(to: file)
        return file
    }

    func testCurlIsToldToContinueAndSendsItsBody() async throws {
        let stubs = Self.stubs()
        let body = try upload(20_000)
        try await withServer(stubs) { server in
            for http2 in [false, true] {
                let result = try curl([
                    "-v", http2 ? "--http2-prior-knowledge" : "--http1.1", "-H", "Expect: 100-continue", "--expect100-timeout", "5",
                    "--data-binary", "@" + body.path, server.baseURL.absoluteString + "/upload",
                ])
                XCTAssertEqual(result.status, 0, result.stderr)
                XCTAssertEqual(result.text, "stored")
                XCTAssertTrue(result.stderr.contains(http2 ? "< HTTP/2 100" : "< HTTP/1.1 100 Continue"), result.stderr)
                XCTAssertFalse(result.stderr.contains("Done waiting for 100-continue"), result.stderr)
            }
        }
        XCTAssertEqual(stubs.journal.interactions.map { $0.request.body?.count }, [20_000, 20_000])
        XCTAssertEqual(stubs.journal.interactions.map(\.httpVersion), [.http1_1, .http2])
    }

    func testARefusingStubAnswersAtOnceAndNeverReadsTheBody() async throws {
        let stubs = Self.stubs()
        let body = try upload(2_000_000)
        try await withServer(stubs) { server in
            for http2 in [false, true] {
                let result = try curl([
                    "-v", http2 ? "--http2-prior-knowledge" : "--http1.1", "-H", "Expect: 100-continue", "--expect100-timeout", "5",
                    "--data-binary", "@" + body.path, server.baseURL.absoluteString + "/refused",
                ])
                XCTAssertEqual(result.text, "too large", result.stderr)
                XCTAssertTrue(result.stderr.contains(http2 ? "< HTTP/2 413" : "< HTTP/1.1 413"), result.stderr)
                XCTAssertFalse(result.stderr.contains(http2 ? "< HTTP/2 100" : "< HTTP/1.1 100"), "no 100 Continue: \(result.stderr)")
                XCTAssertFalse(result.stderr.contains("Done waiting for 100-continue"), result.stderr)
            }
        }
        let entries = stubs.journal.interactions
        XCTAssertEqual(entries.map(\.status), [413, 413])
        XCTAssertEqual(entries.map { $0.request.body?.count ?? 0 }, [0, 0], "the body was never read")
        XCTAssertEqual(entries.map(\.stubName), ["refused", "refused"])
    }

    func testARefusalOnARawSocketClosesTheConnectionAfterTheAnswer() async throws {
        try await withServer(Self.stubs()) { server in
            let socket = try RawSocket(port: server.port)
            socket.send("POST /refused HTTP/1.1\r\nHost: img.test\r\nContent-Length: 5000000\r\nExpect: 100-continue\r\n\r\n")
            let received = socket.read()
            XCTAssertTrue(received.text.hasPrefix("HTTP/1.1 413 Payload Too Large\r\n"), "\(received)")
            XCTAssertTrue(received.text.contains("\r\nConnection: close\r\n"), "\(received)")
            XCTAssertTrue(received.text.hasSuffix("\r\n\r\ntoo large"), "\(received)")
            XCTAssertEqual(received.ending, .closed, "\(received)")
        }
    }

    func testAnIgnoringStubLeavesCurlToStopWaiting() async throws {
        let stubs = Self.stubs()
        let body = try upload(20_000)
        try await withServer(stubs) { server in
            let result = try curl([
                "-v", "--http1.1", "-H", "Expect: 100-continue", "--expect100-timeout", "0.5",
                "--data-binary", "@" + body.path, server.baseURL.absoluteString + "/ignored",
            ])
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertEqual(result.text, "stored late")
            XCTAssertTrue(result.stderr.contains("Done waiting for 100-continue"), result.stderr)
            XCTAssertFalse(result.stderr.contains("< HTTP/1.1 100"), result.stderr)
        }
        XCTAssertEqual(stubs.journal.interactions.map { $0.request.body?.count }, [20_000])
    }

    func testTheBodyStopsBeingReadAtTheCut() async throws {
        let stubs = Self.stubs()
        try await withServer(stubs) { server in
            let socket = try RawSocket(port: server.port)
            let size = 8_000_000
            socket.send("POST /cut HTTP/1.1\r\nHost: img.test\r\nContent-Length: \(size)\r\n\r\n")
            let chunk = [UInt8](repeating: 0x75, count: 16_384)
            var sent = 0
            while sent < size, socket.send(chunk) { sent += chunk.count }
            XCTAssertLessThan(sent, size, "the server stopped reading long before the end of the body")
            let received = socket.read()
            XCTAssertEqual(received.bytes, [], "no answer: \(received)")
            XCTAssertNotEqual(received.ending, .timedOut, "\(received)")
        }
        let entry = try XCTUnwrap(stubs.journal.interactions.first)
        XCTAssertEqual(entry.outcome.description, "fault disconnect-during-request-body(after: 1000)")
        let read = try XCTUnwrap(entry.request.body?.count)
        XCTAssertGreaterThan(read, 1_000)
        XCTAssertLessThan(read, 8_000_000)
    }

    private static let h2Script = #"""
        import socket, sys
        import h2.config, h2.connection, h2.events
        sock = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
        sock.settimeout(10)
        conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
        conn.initiate_connection()
        path = sys.argv[2]
        sid = conn.get_next_available_stream_id()
        conn.send_headers(sid, [(":method", "POST"), (":path", path), (":scheme", "http"), (":authority", "img.test"),
                                ("content-length", "1000000"), ("expect", "100-continue")])
        sock.sendall(conn.data_to_send())
        seen, sent = [], 0
        while True:
            data = sock.recv(65536)
            if not data:
                seen.append("closed")
                break
            done = False
            for event in conn.receive_data(data):
                if isinstance(event, h2.events.InformationalResponseReceived):
                    seen.append("informational " + dict(event.headers)[b":status"].decode())
                    body = b"u" * 1000000
                    while sent < len(body) and conn.local_flow_control_window(sid) > 0:
                        room = min(conn.local_flow_control_window(sid), conn.max_outbound_frame_size, len(body) - sent)
                        conn.send_data(sid, body[sent:sent + room], end_stream=sent + room == len(body))
                        sent += room
                elif isinstance(event, h2.events.ResponseReceived):
                    seen.append("response " + dict(event.headers)[b":status"].decode())
                elif isinstance(event, h2.events.DataReceived):
                    seen.append("data " + event.data.decode())
                    conn.acknowledge_received_data(event.flow_controlled_length, sid)
                elif isinstance(event, h2.events.StreamEnded):
                    seen.append("ended")
                    done = True
                elif isinstance(event, h2.events.StreamReset):
                    seen.append("reset " + event.error_code.name)
                    done = True
                elif isinstance(event, h2.events.WindowUpdated) and 0 < sent < 1000000:
                    body = b"u" * 1000000
                    while sent < len(body) and conn.local_flow_control_window(sid) > 0:
                        room = min(conn.local_flow_control_window(sid), conn.max_outbound_frame_size, len(body) - sent)
                        conn.send_data(sid, body[sent:sent + room], end_stream=sent + room == len(body))
                        sent += room
            sock.sendall(conn.data_to_send())
            if done and (seen[-1] != "ended" or path != "/upload" or sent == 1000000):
                break
        print("\n".join(seen))
        """#

    func testAnHTTP2ClientGetsA100HeadersFrameOrTheRefusalAndAReset() async throws {
        let python = packageRoot.appendingPathComponent(".venv/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: python) else {
            return XCTFail("no \(python): run `make test-deps`, which installs httpx[http2] (and with it h2) into .venv")
        }
        let stubs = Self.stubs()
        try await withServer(stubs) { server in
            let told = try UnderstudyServerTests.run("timeout", ["-s", "KILL", "30", python, "-c", Self.h2Script, String(server.port), "/upload"])
            XCTAssertEqual(told.text.split(separator: "\n").map(String.init), ["informational 100", "response 200", "data stored", "ended"], told.stderr)
            let refused = try UnderstudyServerTests.run("timeout", ["-s", "KILL", "30", python, "-c", Self.h2Script, String(server.port), "/refused"])
            XCTAssertEqual(refused.text.split(separator: "\n").map(String.init), ["response 413", "data too large", "ended"], refused.stderr)
        }
        let entries = stubs.journal.interactions
        XCTAssertEqual(entries.map(\.status), [200, 413])
        XCTAssertEqual(entries.map { $0.request.body?.count ?? 0 }, [1_000_000, 0])
    }

    /// After the refusal: a client that sends its body all the same is asked to stop with
    /// RST_STREAM NO_ERROR; one that stops at the answer, as `Expect: 100-continue` asks, is
    /// left alone (a reset hard on the heels of an answer is what curl sometimes reports as an
    /// empty reply).
    private static let sendOnScript = #"""
        import socket, sys
        import h2.config, h2.connection, h2.events
        sock = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
        sock.settimeout(1.0)
        conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
        conn.initiate_connection()
        conn.send_headers(1, [(":method", "POST"), (":path", "/refused"), (":scheme", "http"), (":authority", "img.test"),
                              ("content-length", "100000"), ("expect", "100-continue")])
        sock.sendall(conn.data_to_send())
        seen, sent_on = [], False
        try:
            while True:
                data = sock.recv(65536)
                if not data:
                    seen.append("closed")
                    break
                for event in conn.receive_data(data):
                    if isinstance(event, h2.events.ResponseReceived):
                        seen.append("response " + dict(event.headers)[b":status"].decode())
                    elif isinstance(event, h2.events.StreamEnded):
                        seen.append("ended")
                        if sys.argv[2] == "send-on" and not sent_on:
                            conn.send_data(1, b"u" * 1000)
                            sent_on = True
                    elif isinstance(event, h2.events.StreamReset):
                        seen.append("reset " + event.error_code.name)
                sock.sendall(conn.data_to_send())
        except socket.timeout:
            seen.append("quiet")
        print("\n".join(seen))
        """#

    func testAnHTTP2ClientThatSendsItsBodyAfterTheRefusalIsResetAndOneThatStopsIsNot() async throws {
        let python = packageRoot.appendingPathComponent(".venv/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: python) else {
            return XCTFail("no \(python): run `make test-deps`, which installs httpx[http2] (and with it h2) into .venv")
        }
        try await withServer(Self.stubs()) { server in
            let sendsOn = try UnderstudyServerTests.run("timeout", ["-s", "KILL", "30", python, "-c", Self.sendOnScript, String(server.port), "send-on"])
            XCTAssertEqual(sendsOn.text.split(separator: "\n").map(String.init), ["response 413", "ended", "reset NO_ERROR", "quiet"], sendsOn.stderr)
            let stops = try UnderstudyServerTests.run("timeout", ["-s", "KILL", "30", python, "-c", Self.sendOnScript, String(server.port), "stop"])
            XCTAssertEqual(stops.text.split(separator: "\n").map(String.init), ["response 413", "ended", "quiet"], stops.stderr)
        }
    }

    private var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }
}
