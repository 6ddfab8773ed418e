import Foundation
import Understudy
import UnderstudyServer
import XCTest
import UnderstudyTestSupport

/// Several keep-alive connections taking turns at the same URLs, as a feed's or a gallery's
/// clients do: an event loop answers a request any of its connections was answered lately
/// without decoding or matching it again. Every change must still show at once, on every
/// connection, and a request must never be taken for another one with the same bytes.
final class RepeatedReadsTests: XCTestCase {
    func testConnectionsTakingTurnsAtAFeedSeeEveryChangeAndEveryRequestIsJournaled() async throws {
        let directory = try makeTemporaryDirectory("repeated-reads")
        let stubs = StubRegistry()
        for n in 0..<6 {
            let file = directory.appendingPathComponent("\(n).txt")
            try Data("file-\(n)-END".utf8).write(to: file)
            stubs.stub(.path("/\(n).txt"), named: "s\(n)", response: .file(file))
        }
        var expected: [String] = []
        try await withServer(stubs) { server in
            // Four connections: each of the server's event loops gets more than one.
            let sockets = try (0..<4).map { _ in try RawSocket(port: server.port) }
            /// Each connection asks for every URL in turn, from its own start; returns what
            /// each answer said, in order.
            func round() -> [String] {
                var bodies: [String] = []
                for step in 0..<6 {
                    for (index, socket) in sockets.enumerated() {
                        let n = (index + step) % 6
                        socket.send("GET /\(n).txt HTTP/1.1\r\nHost: img.test\r\nAccept: */*\r\n\r\n")
                        let received = socket.read(until: "-END")
                        XCTAssertEqual(received.ending, .satisfied, "\(received)")
                        bodies.append(received.text.components(separatedBy: "\r\n\r\n").last ?? "")
                        expected.append("/\(n).txt")
                    }
                }
                return bodies
            }
            let files = (0..<6).flatMap { step in (0..<4).map { "file-\(($0 + step) % 6)-END" } }
            XCTAssertEqual(round(), files)
            XCTAssertEqual(round(), files, "asked again, on other connections than the first time")

            try Data("edited-3-END".utf8).write(to: directory.appendingPathComponent("3.txt"))
            XCTAssertEqual(round(), files.map { $0 == "file-3-END" ? "edited-3-END" : $0 }, "the edited file, on every connection")

            stubs.stub(.path("/4.txt"), named: "override", priority: 5, response: .text("override-END"))
            let overridden = files.map { $0 == "file-3-END" ? "edited-3-END" : $0 == "file-4-END" ? "override-END" : $0 }
            XCTAssertEqual(round(), overridden, "a stub added since")
            stubs.removeStub(named: "override")
            XCTAssertEqual(round(), files.map { $0 == "file-3-END" ? "edited-3-END" : $0 }, "and removed again")
        }
        XCTAssertEqual(stubs.journal.interactions.map(\.request.url.path), expected, "every request journaled, in order")
        XCTAssertEqual(stubs.journal.interactions.filter { $0.stubName == "override" }.count, 4)
        XCTAssertEqual(stubs.useCounts["s4"], 16, "each use counted for the stub that answered it")
    }

    /// A read that finishes a head begun in an earlier read is not a request of its own, though
    /// its bytes are exactly a request another connection of the loop was answered.
    func testAHeadFinishedInALaterReadIsNotTakenForARequestAnotherConnectionMade() async throws {
        let stubs = StubRegistry()
        stubs.stub(.pathPrefix("/"), named: "text", response: .text("a-END"))
        let request = "GET /a.txt HTTP/1.1\r\nHost: img.test\r\n\r\n"
        try await withServer(stubs) { server in
            let sockets = try (0..<4).map { _ in try RawSocket(port: server.port) }
            for socket in sockets {
                socket.send(request)
                XCTAssertEqual(socket.read(until: "a-END").ending, .satisfied)
                socket.send("GET /b.txt HTTP/1.1\r\nHost: img.test\r\n\r\n")
                XCTAssertEqual(socket.read(until: "a-END").ending, .satisfied)
            }
            for socket in sockets {
                // The first read ends inside a header value that the second read's bytes complete.
                socket.send("GET /c.txt HTTP/1.1\r\nX-Begun-Earlier: ")
            }
            try await Task.sleep(for: .milliseconds(100))
            for socket in sockets {
                socket.send(request)
                XCTAssertEqual(socket.read(until: "a-END").ending, .satisfied)
            }
        }
        let begun = stubs.journal.interactions.suffix(4)
        XCTAssertEqual(begun.map(\.request.url.path), Array(repeating: "/c.txt", count: 4))
        XCTAssertEqual(begun.map { $0.request.headers["X-Begun-Earlier"] }, Array(repeating: "GET /a.txt HTTP/1.1", count: 4))
    }

    /// The same bytes over the plain and the TLS listener are two requests (`http` and
    /// `https`), whichever connection or event loop saw them first.
    func testTheSameBytesOverHTTPAndHTTPSAreDifferentRequests() async throws {
        let directory = try makeTemporaryDirectory("repeated-reads-tls")
        let stubs = StubRegistry()
        stubs.stub(.scheme("https") && .path("/cat.png"), named: "https-cat", response: .text("tls-END"))
        stubs.stub(.scheme("http") && .path("/cat.png"), named: "http-cat", response: .text("plain-END"))
        stubs.stub(.path("/first.png"), named: "first", response: .text("first-END"))
        let server = try await StubServer.start(serving: stubs, tls: .localCA(directory: directory.appendingPathComponent("ca")))
        defer { Task { try? await server.stop() } }
        let caFile = directory.appendingPathComponent("trusted.pem")
        try Data(try XCTUnwrap(server.certificateAuthority).pem.utf8).write(to: caFile)
        // Three TLS connections, then three plain ones, each asking twice for /first.png, then
        // twice for /cat.png with the same bytes: each event loop gets connections of both.
        let script = """
            import socket, ssl, sys
            plain, tls, ca = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
            context = ssl.create_default_context(cafile=ca)
            def answer(connection):
                data = b""
                while b"-END" not in data:
                    chunk = connection.recv(65536)
                    if not chunk:
                        break
                    data += chunk
                head, _, body = data.partition(b"\\r\\n\\r\\n")
                stub = [line.split(b": ", 1)[1] for line in head.split(b"\\r\\n") if line.startswith(b"X-Understudy-Stub: ")]
                return (stub[0] if stub else b"-").decode() + " " + body.decode()
            connections = []
            for _ in range(3):
                connections.append(context.wrap_socket(socket.create_connection(("127.0.0.1", tls)), server_hostname="127.0.0.1"))
            for _ in range(3):
                connections.append(socket.create_connection(("127.0.0.1", plain)))
            for connection in connections:
                for path in ["/first.png", "/first.png", "/cat.png", "/cat.png"]:
                    connection.sendall(("GET %s HTTP/1.1\\r\\nHost: img.test\\r\\n\\r\\n" % path).encode())
                    print(answer(connection))
            """
        let result = try runClient("python3", ["-c", script, String(server.port), String(try XCTUnwrap(server.tlsPort)), caFile.path])
        XCTAssertEqual(result.status, 0, result.stderr)
        let perConnection = ["first first-END", "first first-END"]
        let expected = Array(repeating: perConnection + ["https-cat tls-END", "https-cat tls-END"], count: 3).flatMap { $0 }
            + Array(repeating: perConnection + ["http-cat plain-END", "http-cat plain-END"], count: 3).flatMap { $0 }
        XCTAssertEqual(result.text.split(separator: "\n").map(String.init), expected)
    }
}
