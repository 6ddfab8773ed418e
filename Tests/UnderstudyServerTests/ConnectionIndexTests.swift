import Foundation
import Understudy
import UnderstudyServer
import UnderstudyXCTest
import XCTest
import UnderstudyTestSupport

/// Which connection each request came on, as curl, an HTTP/2 client and TLS clients make them:
/// the journal, the admin API, HAR and the assertions all say the same.
final class ConnectionIndexTests: XCTestCase {
    private static func stubs() -> StubRegistry {
        let stubs = StubRegistry()
        for name in ["a", "b", "c", "d", "e"] {
            stubs.stub(.path("/\(name).png"), named: name, response: .data(Data(name.utf8), contentType: "image/png"))
        }
        return stubs
    }

    private static func connections(_ stubs: StubRegistry) -> [String] {
        stubs.journal.interactions.map { "\($0.request.url.path) \($0.connection.map(String.init) ?? "-")·\($0.exchange.map(String.init) ?? "-")" }
    }

    func testCurlReusingOneConnectionIsOneConnectionAndSeparateCurlsAreOthers() async throws {
        let stubs = Self.stubs()
        try await withServer(stubs) { server in
            let base = server.baseURL.absoluteString
            // One curl, three URLs: it keeps the connection for all three.
            let reused = try curl(["-o", "/dev/null", "-o", "/dev/null", "-o", "/dev/null", "\(base)/a.png", "\(base)/b.png", "\(base)/c.png"])
            XCTAssertEqual(reused.status, 0, reused.stderr)
            for path in ["/d.png", "/e.png"] {
                XCTAssertEqual(try curl(["-o", "/dev/null", base + path]).status, 0)
            }
            let seen = Self.connections(stubs)
            let first = try XCTUnwrap(stubs.journal.interactions.first?.connection)
            XCTAssertEqual(seen, [
                "/a.png \(first)·1", "/b.png \(first)·2", "/c.png \(first)·3", "/d.png \(first + 1)·1", "/e.png \(first + 2)·1",
            ])
            XCTAssertNil(stubs.journal.interactions.first?.tls, "no TLS on the plain port")

            // The admin API and HAR say the same.
            let json = try curl(["\(base)/__admin/requests"])
            let root = try XCTUnwrap(try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])
            let requests = try XCTUnwrap(root["requests"] as? [[String: Any]])
            let listed = requests.compactMap { ($0["request"] as? [String: Any])?["understudy"] as? [String: Any] }.map { "\($0["connection"] ?? "-")·\($0["exchange"] ?? "-")" }
            XCTAssertEqual(listed.sorted(), ["\(first)·1", "\(first)·2", "\(first)·3", "\(first + 1)·1", "\(first + 2)·1"].sorted(), "\(requests)")
            let har = try curl(["\(base)/__admin/requests.har"])
            let log = try XCTUnwrap((try JSONSerialization.jsonObject(with: har.stdout) as? [String: Any])?["log"] as? [String: Any])
            let harConnections = try XCTUnwrap(log["entries"] as? [[String: Any]]).compactMap { $0["connection"] as? String }
            XCTAssertEqual(harConnections, ["\(first)", "\(first)", "\(first)", "\(first + 1)", "\(first + 2)"])
        }
        XCTAssertRequested(stubs, .path("/c.png"), connection: .sameAs(.path("/a.png")))
        XCTAssertRequested(stubs, .path("/d.png"), connection: .otherThan(.path("/a.png")))
        let first = stubs.journal.interactions[0].connection!
        XCTAssertEqual(
            FailureMessages.requested(stubs.journal, .path("/e.png"), connection: .sameAs(.path("/a.png"))),
            "expected request 5 (GET http://127.0.0.1:\(stubs.journal.interactions[4].request.url.port!)/e.png) on the connection of request 1 "
                + "(GET http://127.0.0.1:\(stubs.journal.interactions[0].request.url.port!)/a.png), connection \(first); it came on connection \(first + 2)"
        )
        XCTAssertEqual(
            FailureMessages.requested(stubs.journal, .path("/b.png"), connection: .otherThan(.path("/a.png"))),
            "expected request 2 (GET http://127.0.0.1:\(stubs.journal.interactions[1].request.url.port!)/b.png) on another connection than request 1 "
                + "(GET http://127.0.0.1:\(stubs.journal.interactions[0].request.url.port!)/a.png); both came on connection \(first) (exchanges 1 and 2)"
        )
    }

    func testTheStreamsOfOneHTTP2ConnectionShareItsIndex() async throws {
        let stubs = Self.stubs()
        var configuration = StubServer.Configuration()
        configuration.http2 = true
        try await withServer(stubs, configuration: configuration) { server in
            let client = try await HTTP2TestClient.connect(port: server.port)
            for path in ["/a.png", "/b.png", "/c.png"] {
                let response = try await client.send(path, authority: "img.test")
                XCTAssertEqual(response.status, "200")
            }
            await client.close()
            let other = try await HTTP2TestClient.connect(port: server.port)
            _ = try await other.send("/d.png", authority: "img.test")
            await other.close()
        }
        let first = try XCTUnwrap(stubs.journal.interactions.first?.connection)
        XCTAssertEqual(Self.connections(stubs), ["/a.png \(first)·1", "/b.png \(first)·2", "/c.png \(first)·3", "/d.png \(first + 1)·1"])
        XCTAssertEqual(stubs.journal.interactions.map(\.httpVersion), [.http2, .http2, .http2, .http2])
    }

    func testATLSConnectionsEntriesCarryItsServerNameProtocolAndVersion() async throws {
        let stubs = Self.stubs()
        let directory = try makeTemporaryDirectory("connection-tls")
        var configuration = StubServer.Configuration()
        configuration.http2 = true
        let server = try await StubServer.start(serving: stubs, configuration: configuration, tls: .localCA(directory: directory.appendingPathComponent("ca")))
        let caFile = directory.appendingPathComponent("trusted.pem")
        try Data(try XCTUnwrap(server.certificateAuthority).pem.utf8).write(to: caFile)
        let port = try XCTUnwrap(server.tlsPort)
        let resolve = ["--resolve", "img.test:\(port):127.0.0.1", "--cacert", caFile.path, "-o", "/dev/null"]
        let h1 = try curl(["-v", "--http1.1"] + resolve + ["https://img.test:\(port)/a.png", "https://img.test:\(port)/b.png"] + ["-o", "/dev/null"])
        let h2 = try curl(["-v", "--http2", "--tlsv1.2", "--tls-max", "1.2"] + resolve + ["https://img.test:\(port)/c.png"])
        try await server.stop()
        XCTAssertEqual(h1.status, 0, h1.stderr)
        XCTAssertEqual(h2.status, 0, h2.stderr)
        let entries = stubs.journal.interactions
        XCTAssertEqual(entries.map { $0.tls?.serverName }, ["img.test", "img.test", "img.test"])
        XCTAssertEqual(entries.map { $0.tls?.applicationProtocol }, ["http/1.1", "http/1.1", "h2"])
        XCTAssertEqual(entries.map { $0.tls?.protocolVersion }, ["TLSv1.3", "TLSv1.3", "TLSv1.2"])
        // curl names a TLS 1.3 suite as IANA does, and a TLS 1.2 suite as OpenSSL does.
        let curlSuites = try [h1, h2].map { result -> String in
            let line = try XCTUnwrap(result.stderr.split(separator: "\n").first { $0.contains("SSL connection using") }, result.stderr)
            return String(line.split(separator: " ").last!)
        }
        let openSSLNames = [
            "ECDHE-ECDSA-AES128-GCM-SHA256": "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "ECDHE-ECDSA-AES256-GCM-SHA384": "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
            "ECDHE-RSA-AES128-GCM-SHA256": "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "ECDHE-RSA-AES256-GCM-SHA384": "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
            "ECDHE-ECDSA-CHACHA20-POLY1305": "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", "ECDHE-RSA-CHACHA20-POLY1305": "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
        ]
        XCTAssertEqual(entries.map { $0.tls?.cipherSuite }, [curlSuites[0], curlSuites[0], openSSLNames[curlSuites[1]] ?? curlSuites[1]], "as curl saw it")
        XCTAssertEqual(entries.map(\.exchange), [1, 2, 1])
        XCTAssertEqual(entries[0].connection, entries[1].connection)
        XCTAssertNotEqual(entries[1].connection, entries[2].connection)
    }
}
