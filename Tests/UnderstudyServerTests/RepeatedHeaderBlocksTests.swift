import Foundation
import NIOHPACK
import Understudy
@testable import UnderstudyServer
import XCTest

/// Several HTTP/2 connections taking turns at the same URLs: an event loop answers a stream
/// whose HEADERS block repeats one any of its connections was answered lately without
/// converting or matching it again. Every change must still show at once, on every connection,
/// and a stream must never be taken for another whose block differs in any byte or order.
final class RepeatedHeaderBlocksTests: XCTestCase {
    func testConnectionsTakingTurnsAtAFeedSeeEveryChangeAndEveryStreamIsJournaled() async throws {
        let directory = try makeTemporaryDirectory("repeated-blocks")
        let stubs = StubRegistry()
        for n in 0..<6 {
            let file = directory.appendingPathComponent("\(n).txt")
            try Data("file-\(n)".utf8).write(to: file)
            stubs.stub(.path("/\(n).txt"), named: "s\(n)", response: .file(file))
        }
        var expected: [String] = []
        try await withServer(stubs) { server in
            // Four connections: each of the server's event loops gets more than one.
            var clients: [HTTP2TestClient] = []
            for _ in 0..<4 { clients.append(try await HTTP2TestClient.connect(port: server.port)) }
            /// Each connection asks for every URL in turn, from its own start; returns each
            /// answer's body and stub, in order.
            func round() async throws -> [String] {
                var answers: [String] = []
                for step in 0..<6 {
                    for (index, client) in clients.enumerated() {
                        let n = (index + step) % 6
                        let response = try await client.send("/\(n).txt", headers: [("accept", "*/*")])
                        XCTAssertEqual(response.status, "200")
                        answers.append(String(decoding: response.body, as: UTF8.self) + " " + (response.headers?.first(name: "x-understudy-stub") ?? "-"))
                        expected.append("/\(n).txt")
                    }
                }
                return answers
            }
            let files = (0..<6).flatMap { step in (0..<4).map { "file-\(($0 + step) % 6) s\(($0 + step) % 6)" } }
            let first = try await round()
            XCTAssertEqual(first, files)
            let second = try await round()
            XCTAssertEqual(second, files, "asked again, on other connections than the first time")

            try Data("edited-3".utf8).write(to: directory.appendingPathComponent("3.txt"))
            let edited = files.map { $0 == "file-3 s3" ? "edited-3 s3" : $0 }
            let afterEdit = try await round()
            XCTAssertEqual(afterEdit, edited, "the edited file, on every connection")

            stubs.stub(.path("/4.txt"), named: "override", priority: 5, response: .text("override"))
            let overridden = try await round()
            XCTAssertEqual(overridden, edited.map { $0 == "file-4 s4" ? "override override" : $0 }, "a stub added since")
            stubs.removeStub(named: "override")
            let restored = try await round()
            XCTAssertEqual(restored, edited, "and removed again")
            for client in clients { await client.close() }
        }
        XCTAssertEqual(stubs.journal.interactions.map(\.request.url.path), expected, "every stream journaled, in order")
        XCTAssertTrue(stubs.journal.interactions.allSatisfy { $0.httpVersion == .http2 })
        XCTAssertEqual(stubs.journal.interactions.filter { $0.stubName == "override" }.count, 4)
        XCTAssertEqual(stubs.useCounts["s4"], 16, "each use counted for the stub that answered it")
    }

    /// Blocks with the same fields in another order, or one value changed, are other requests:
    /// the journal shows each as its client sent it, and a stub matching on the value answers.
    func testABlockThatDiffersInOrderOrInOneValueIsAnotherRequest() async throws {
        let stubs = StubRegistry()
        stubs.stub(.path("/cat") && .header("accept", value: "image/webp"), named: "webp", priority: 5, response: .text("webp"))
        stubs.stub(.path("/cat"), named: "any", response: .text("any"))
        let inOrder = [("x-first", "1"), ("x-second", "2"), ("accept", "image/png")]
        let swapped = [("x-second", "2"), ("x-first", "1"), ("accept", "image/png")]
        let webp = [("x-first", "1"), ("x-second", "2"), ("accept", "image/webp")]
        try await withServer(stubs) { server in
            var clients: [HTTP2TestClient] = []
            for _ in 0..<4 { clients.append(try await HTTP2TestClient.connect(port: server.port)) }
            // Every connection asks twice in order: each loop keeps the block.
            for client in clients {
                for _ in 0..<2 {
                    let response = try await client.send("/cat", headers: inOrder)
                    XCTAssertEqual(String(decoding: response.body, as: UTF8.self), "any")
                }
            }
            for client in clients {
                let response = try await client.send("/cat", headers: swapped)
                XCTAssertEqual(String(decoding: response.body, as: UTF8.self), "any")
                let other = try await client.send("/cat", headers: webp)
                XCTAssertEqual(String(decoding: other.body, as: UTF8.self), "webp", "one value changed")
                XCTAssertEqual(other.headers?.first(name: "x-understudy-stub"), "webp")
            }
            for client in clients { await client.close() }
        }
        let sent = stubs.journal.interactions.map { entry in
            entry.request.headers.fields.filter { $0.name.hasPrefix("x-") || $0.name == "accept" }.map { "\($0.name): \($0.value)" }
        }
        let asSent = { (fields: [(String, String)]) in fields.map { "\($0.0): \($0.1)" } }
        XCTAssertEqual(sent, Array(repeating: asSent(inOrder), count: 8) + Array(repeating: [asSent(swapped), asSent(webp)], count: 4).flatMap { $0 })
        let answeredBy: [String?] = Array(repeating: "any", count: 8) + Array(repeating: ["any", "webp"], count: 4).flatMap { $0 }
        XCTAssertEqual(stubs.journal.interactions.map(\.stubName), answeredBy)
    }

    /// The same HEADERS block over h2c and over TLS (the test client sends `:scheme: http` on
    /// both; the request's scheme is the connection's) makes two requests, `http` and `https`,
    /// whichever connection or event loop saw it first.
    func testTheSameBlockOverH2CAndOverTLSAreDifferentRequests() async throws {
        let directory = try makeTemporaryDirectory("repeated-blocks-tls")
        let stubs = StubRegistry()
        stubs.stub(.scheme("https") && .path("/cat.png"), named: "https-cat", response: .text("tls"))
        stubs.stub(.scheme("http") && .path("/cat.png"), named: "http-cat", response: .text("plain"))
        stubs.stub(.path("/first.png"), named: "first", response: .text("first"))
        let server = try await StubServer.start(serving: stubs, tls: .localCA(directory: directory.appendingPathComponent("ca")))
        defer { Task { try? await server.stop() } }
        let ca = Array(try XCTUnwrap(server.certificateAuthority).der)
        // Three TLS connections, then three plain ones, each asking twice for /first.png, then
        // twice for /cat.png with the same block: each event loop gets connections of both.
        var clients: [HTTP2TestClient] = []
        for _ in 0..<3 { clients.append(try await HTTP2TestClient.connect(port: try XCTUnwrap(server.tlsPort), trusting: ca)) }
        for _ in 0..<3 { clients.append(try await HTTP2TestClient.connect(port: server.port)) }
        var answers: [String] = []
        for client in clients {
            for path in ["/first.png", "/first.png", "/cat.png", "/cat.png"] {
                let response = try await client.send(path, authority: "img.test")
                answers.append((response.headers?.first(name: "x-understudy-stub") ?? "-") + " " + String(decoding: response.body, as: UTF8.self))
            }
            await client.close()
        }
        let perConnection = ["first first", "first first"]
        let expected = Array(repeating: perConnection + ["https-cat tls", "https-cat tls"], count: 3).flatMap { $0 }
            + Array(repeating: perConnection + ["http-cat plain", "http-cat plain"], count: 3).flatMap { $0 }
        XCTAssertEqual(answers, expected)
    }
}

/// A HEADERS block as the key its event loop keeps a request by.
final class HeaderBlockTests: XCTestCase {
    private func block(_ fields: [(String, String)]) -> HeaderBlock {
        HeaderBlock(HPACKHeaders(fields))
    }

    private let fields = [(":method", "GET"), (":scheme", "https"), (":authority", "img.test"), (":path", "/feed/0001.png"), ("accept", "image/*")]

    func testBlocksAreEqualOnlyWithTheSameBytesInTheSameOrder() {
        XCTAssertEqual(block(fields), block(fields))
        XCTAssertEqual(block(fields).quickHash, block(fields).quickHash, "what the loop's table hashes")
        XCTAssertNotEqual(block(fields), block(fields.reversed()), "HPACKHeaders' own == would call these equal")
        XCTAssertNotEqual(block(fields), block(fields.dropLast()))
        XCTAssertNotEqual(block(fields), block(fields.map { $0.0 == "accept" ? ($0.0, "image/webp") : $0 }))
        // "é" precomposed and decomposed: equal as Strings, not as bytes, and not the same request.
        XCTAssertNotEqual(block([("x-name", "caf\u{E9}")]), block([("x-name", "cafe\u{301}")]))
    }

    func testTheQuickHashReadsEveryByteAndWhereEachFieldEnds() {
        var hashes: Set<UInt64> = [block(fields).quickHash]
        for (index, field) in fields.enumerated() {
            var changed = fields
            changed[index].1 = field.1 + "x"
            hashes.insert(block(changed).quickHash)
        }
        // The same bytes split differently between name and value.
        hashes.insert(block([("ab", "c")]).quickHash)
        hashes.insert(block([("a", "bc")]).quickHash)
        XCTAssertEqual(hashes.count, fields.count + 3)
    }

    func testABlockWithoutAHostIsNotKept() {
        XCTAssertTrue(block(fields).namesHost)
        XCTAssertTrue(block(fields.filter { $0.0 != ":authority" } + [("host", "img.test")]).namesHost)
        XCTAssertFalse(block(fields.filter { $0.0 != ":authority" }).namesHost)
    }
}
