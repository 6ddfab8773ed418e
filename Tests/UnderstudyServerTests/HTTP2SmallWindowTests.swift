import Foundation
import Understudy
import UnderstudyServer
import XCTest
import UnderstudyTestSupport

/// HTTP/2 flow control with a 1 KB window, driven by Python's `h2` library, which raises on any
/// DATA beyond the window it granted: four 40 KB responses in 1 KB steps, and a 200 KB upload the
/// server keeps granting window for (`HTTP2InboundWindow`).
final class HTTP2SmallWindowTests: XCTestCase {
    private static let script = #"""
        import socket, sys
        import h2.config, h2.connection, h2.events, h2.settings
        sock = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
        sock.settimeout(10)
        conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
        conn.initiate_connection()
        conn.update_settings({h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 1024})
        gets = []
        for _ in range(4):
            sid = conn.get_next_available_stream_id()
            conn.send_headers(sid, [(":method", "GET"), (":path", "/cat.png"), (":scheme", "http"), (":authority", "img.test")], end_stream=True)
            gets.append(sid)
        post = conn.get_next_available_stream_id()
        conn.send_headers(post, [(":method", "POST"), (":path", "/upload"), (":scheme", "http"), (":authority", "img.test"),
                                 ("content-length", "200000")])
        pending = b"u" * 200000
        sock.sendall(conn.data_to_send())
        bodies, statuses, ended, largest = {}, {}, set(), 0
        while len(ended) < 5:
            while pending:
                room = min(conn.local_flow_control_window(post), conn.max_outbound_frame_size, len(pending))
                if room <= 0:
                    break
                conn.send_data(post, pending[:room], end_stream=len(pending) == room)
                pending = pending[room:]
            sock.sendall(conn.data_to_send())
            data = sock.recv(65536)
            if not data:
                break
            for event in conn.receive_data(data):
                if isinstance(event, h2.events.ResponseReceived):
                    statuses[event.stream_id] = dict(event.headers)[b":status"].decode()
                elif isinstance(event, h2.events.DataReceived):
                    largest = max(largest, len(event.data))
                    bodies[event.stream_id] = bodies.get(event.stream_id, 0) + len(event.data)
                    conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                elif isinstance(event, h2.events.StreamEnded):
                    ended.add(event.stream_id)
                elif isinstance(event, h2.events.StreamReset):
                    print("reset", event.stream_id, event.error_code)
                    ended.add(event.stream_id)
            sock.sendall(conn.data_to_send())
        for sid in gets + [post]:
            print(sid, statuses.get(sid), bodies.get(sid, 0))
        print("largest", largest)
        """#

    func testAOneKilobyteWindowIsKeptBothWays() async throws {
        let python = packageRoot.appendingPathComponent(".venv/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: python) else {
            return XCTFail("no \(python): run `make test-deps`, which installs httpx[http2] (and with it h2) into .venv")
        }
        let image = Data((0..<40_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        let stubs = StubRegistry()
        stubs.stub(.path("/cat.png"), named: "cat", response: .data(image, contentType: "image/png"))
        stubs.stub(.method("POST") && .path("/upload"), named: "upload", response: .text("got it"))
        try await withServer(stubs) { server in
            let result = try UnderstudyServerTests.run("timeout", ["-s", "KILL", "30", python, "-c", Self.script, String(server.port)])
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertEqual(result.text.split(separator: "\n").map(String.init), [
                "1 200 40000", "3 200 40000", "5 200 40000", "7 200 40000", "9 200 6", "largest 1024",
            ], result.stderr)
        }
        XCTAssertEqual(stubs.journal.interactions.filter { $0.request.method == "POST" }.map { $0.request.body?.count }, [200_000])
    }

    private var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }
}
