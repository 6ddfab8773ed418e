import Foundation
import NIOCore
import NIOHPACK
import NIOHTTP2
import Understudy
import UnderstudyServer
import XCTest

/// Requests that break RFC 9113's rules for a request (sections 8.1 to 8.3), sent frame by frame
/// with NIO's HTTP/2 client codec over loopback: each stream is reset with `PROTOCOL_ERROR` and
/// journaled with why, in words, and the connection and its other streams go on.
final class HTTP2MalformedRequestTests: XCTestCase {
    private static let b = (0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 2) }

    private func stubsServingB() -> StubRegistry {
        let stubs = StubRegistry()
        stubs.stub(.path("/b"), named: "b", response: .data(Data(Self.b), contentType: "image/png"))
        return stubs
    }

    /// Conformance cases of RFC 9113 section 8 that h2spec would try (it is not packaged for
    /// Debian): malformed requests are stream errors, and the connection lives on.
    func testMalformedRequestsAreStreamErrorsThatLeaveTheConnection() async throws {
        let stubs = stubsServingB()
        try await withServer(stubs) { server in
            let client = try await HTTP2TestClient.connect(port: server.port, validatesContentLength: false, validatesHeaders: false)
            let uppercase = try await client.send("/b", headers: [("X-Upper", "1")])
            XCTAssertNil(uppercase.headers, "an uppercase field name (section 8.2.1)")
            XCTAssertEqual(uppercase.reset, .protocolError)
            let connectionHeader = try await client.send("/b", headers: [("connection", "keep-alive")])
            XCTAssertEqual(connectionHeader.reset, .protocolError, "a connection-specific field (section 8.2.2)")
            let shortBody = try await client.send("/b", method: "POST", headers: [("content-length", "10")], body: Array(repeating: 1, count: 5))
            XCTAssertNil(shortBody.headers, "a body shorter than its content-length (section 8.1.1)")
            XCTAssertEqual(shortBody.reset, .protocolError)
            let fine = try await client.send("/b")
            XCTAssertTrue(fine.body == Self.b, "the connection is still good")
            XCTAssertFalse(client.isClosed)
            await client.close()
        }
        // Malformed requests reach no stub; each is journaled, with what was read of it and why.
        let entries = stubs.journal.interactions
        XCTAssertEqual(entries.compactMap(\.stubName), ["b"], "malformed requests reach no stub")
        let refused = entries.filter { $0.stubName == nil }
        XCTAssertEqual(refused.count, 3, "\(refused)")
        XCTAssertTrue(refused.allSatisfy { $0.httpVersion == .http2 && $0.status == nil })
        let reasons = refused.map { entry -> String in
            guard case .failed(let message) = entry.outcome else { return "not failed: \(entry.outcome)" }
            return message
        }
        XCTAssertTrue(reasons.allSatisfy { $0.hasPrefix("malformed HTTP/2 request, stream reset with PROTOCOL_ERROR: ") }, "\(reasons)")
        XCTAssertEqual(refused.last.map { "\($0.request.method) \($0.request.url.path)" }, "POST /b")
        XCTAssertEqual(reasons.last, "malformed HTTP/2 request, stream reset with PROTOCOL_ERROR: a body of 5 bytes where content-length says 10")
    }

    /// A HEADERS block that is not a request (RFC 9113 section 8.3.1): without `:method`,
    /// `:scheme` or `:path`, or with one twice. Each stream is reset and journaled with why, in
    /// words; a
    /// block without `:authority` is matched on the listener's address, as HTTP/1.1 without `Host`.
    func testHeaderBlocksMissingOrRepeatingPseudoHeadersAreResetAndJournaledWithWhy() async throws {
        let stubs = stubsServingB()
        try await withServer(stubs) { server in
            let client = try await HTTP2TestClient.connect(port: server.port, validatesContentLength: false, validatesHeaders: false)
            for omitted in [":method", ":scheme", ":path"] {
                let response = try await client.send("/b", omitting: [omitted])
                XCTAssertNil(response.headers, "without \(omitted)")
                XCTAssertEqual(response.reset, .protocolError, "without \(omitted)")
            }
            let twice = try await client.send("/b", headers: [(":path", "/a")])
            XCTAssertEqual(twice.reset, .protocolError, ":path twice")
            let noAuthority = try await client.send("/b", omitting: [":authority"])
            XCTAssertEqual(noAuthority.headers?.first(name: ":status"), "200", "no :authority")
            XCTAssertTrue(noAuthority.body == Self.b)
            XCTAssertFalse(client.isClosed, "stream errors leave the connection")
            await client.close()
        }
        let entries = stubs.journal.interactions
        XCTAssertEqual(entries.last?.stubName, "b")
        XCTAssertEqual(entries.last?.request.url.host, "127.0.0.1", "matched on the listener's address")
        let reasons = entries.dropLast().map { entry -> String in
            guard case .failed(let message) = entry.outcome else { return "not failed: \(entry.outcome)" }
            return message.replacingOccurrences(of: "malformed HTTP/2 request, stream reset with PROTOCOL_ERROR: ", with: "")
        }
        XCTAssertEqual(reasons.count, 4, "\(entries)")
        let needs = "a request needs :method, :scheme and :path, once each (RFC 9113 section 8.3.1); this one had "
        XCTAssertEqual(reasons, [
            needs + ":scheme, :authority, :path", needs + ":method, :authority, :path", needs + ":method, :scheme, :authority",
            "pseudo-header :path appears twice",
        ])
        XCTAssertEqual(entries.map(\.connection), Array(repeating: entries.first?.connection, count: 5), "one connection: \(entries)")
        XCTAssertNotNil(entries.first?.connection)
        XCTAssertEqual(entries.map(\.exchange), [1, 2, 3, 4, 5], "refused streams count among the connection's exchanges")
        XCTAssertEqual(Set(entries.map(\.httpVersion)), [.http2])
    }

    /// The rest of RFC 9113 section 8's rules for a request's blocks, which the server checks
    /// itself (NIOHTTP2's validation is off, see ARCHITECTURE.md): each breach resets its stream
    /// and is journaled with why, and the fields the rules allow are answered.
    func testRequestFieldsBreakingSection8AreResetAndJournaledWithWhy() async throws {
        let stubs = stubsServingB()
        stubs.stub(.method("POST") && .path("/upload"), named: "upload", response: .text("taken"))
        var answered: [String?] = []
        try await withServer(stubs) { server in
            let client = try await HTTP2TestClient.connect(port: server.port, validatesContentLength: false, validatesHeaders: false)
            let refused: [(String, [(String, String)])] = [
                ("te other than trailers", [("te", "gzip")]),
                ("a space in a name", [("x bad", "1")]),
                ("a CR in a value", [("x-note", "a\rb")]),
                ("a pseudo-header after a regular field", [("x-a", "1"), (":scheme", "http")]),
                ("an unknown pseudo-header", [(":unknown", "1")]),
            ]
            for (why, headers) in refused {
                let response = try await client.send("/b", headers: headers)
                XCTAssertNil(response.headers, why)
                XCTAssertEqual(response.reset, .protocolError, why)
            }
            let spaced = try await client.send("/b c")
            XCTAssertEqual(spaced.reset, .protocolError, "a space in :path")
            var badTrailers = HPACKHeaders()
            badTrailers.add(name: ":path", value: "/other")
            let trailed = try await client.send("/upload", method: "POST", body: Array("x".utf8), trailers: badTrailers)
            XCTAssertEqual(trailed.reset, .protocolError, "a pseudo-header in trailers")
            // What the rules allow: `te: trailers`, names as long as the connection-specific
            // ones (`referer`, `x-checksum`), and trailers of regular fields.
            var goodTrailers = HPACKHeaders()
            goodTrailers.add(name: "x-checksum", value: "abc")
            answered.append(try await client.send("/b", headers: [("te", "trailers"), ("referer", "http://img.example.com/")]).status)
            answered.append(try await client.send("/upload", method: "POST", body: Array("x".utf8), trailers: goodTrailers).status)
            XCTAssertFalse(client.isClosed, "stream errors leave the connection")
            await client.close()
        }
        XCTAssertEqual(answered, ["200", "200"])
        let reasons = stubs.journal.interactions.filter { $0.stubName == nil }.map { entry -> String in
            guard case .failed(let message) = entry.outcome else { return "not failed: \(entry.outcome)" }
            return message.replacingOccurrences(of: "malformed HTTP/2 request, stream reset with PROTOCOL_ERROR: ", with: "")
        }
        XCTAssertEqual(reasons, [
            "te: gzip; a request may send te only as \"trailers\" (RFC 9113 section 8.2.2)",
            "field name \"x bad\" is not a token (RFC 9113 section 8.2.1)",
            "field x-note has a CR, LF or NUL in its value (RFC 9113 section 8.2.1)",
            "pseudo-header :scheme after a regular field (RFC 9113 section 8.3)",
            "unknown pseudo-header :unknown",
            "pseudo-header :path has a space or control character in its value (RFC 9113 section 8.3)",
            "pseudo-header :path in trailers (RFC 9113 section 8.1)",
        ])
        XCTAssertEqual(stubs.journal.interactions.compactMap(\.stubName), ["b", "upload"])
    }
}
