import Foundation
import NIOCore
import NIOHPACK
import NIOHTTP2
import Understudy
import UnderstudyServer
import XCTest

/// Faults on HTTP/2 act on their own stream (SPEC section 10): seen frame by frame with NIO's
/// HTTP/2 client codec over loopback, several streams on one connection.
final class HTTP2StreamTests: XCTestCase {
    private static func bytes(_ count: Int, seed: UInt8) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ Int(seed)) }
    }

    private static let a = bytes(100_000, seed: 1), b = bytes(20_000, seed: 2), slow = bytes(5_000, seed: 3)

    private func makeStubs() -> StubRegistry {
        let stubs = StubRegistry()
        stubs.stub(.path("/a"), named: "a", response: .data(Data(Self.a), contentType: "image/png"))
        stubs.stub(.path("/b"), named: "b", response: .data(Data(Self.b), contentType: "image/png"))
        stubs.stub(.path("/slow"), named: "slow", response: .data(Data(Self.slow), contentType: "image/png").delayed(by: .milliseconds(300)))
        stubs.stub(.path("/reset"), named: "reset", response: .failure(.connectionReset))
        stubs.stub(.path("/empty"), named: "empty", response: .failure(.emptyResponse))
        stubs.stub(.path("/cut"), named: "cut", response: .data(Data(Self.a)).truncated(after: 1_000))
        stubs.stub(.path("/silent"), named: "silent", response: .failure(.noResponse))
        stubs.stub(.path("/malformed"), named: "malformed", response: .failure(.malformedChunk))
        stubs.stub(.path("/garbage"), named: "garbage", response: .failure(.randomDataThenClose))
        stubs.stub(.path("/bye"), named: "bye", response: .failure(.goaway))
        return stubs
    }

    private func withClient(_ stubs: StubRegistry, validatesContentLength: Bool = true, _ body: (HTTP2TestClient) async throws -> Void) async throws {
        try await withServer(stubs) { server in
            let client = try await HTTP2TestClient.connect(port: server.port, validatesContentLength: validatesContentLength)
            do {
                try await body(client)
            } catch {
                await client.close()
                throw error
            }
            await client.close()
        }
    }

    func testAResetStreamLeavesItsSiblingsWhole() async throws {
        let stubs = makeStubs()
        try await withClient(stubs) { client in
            let slow = client.start("/slow"), a = client.start("/a"), reset = client.start("/reset"), b = client.start("/b")
            let (resetResponse, aResponse, bResponse, slowResponse) = try await (reset.get(), a.get(), b.get(), slow.get())
            XCTAssertNil(resetResponse.headers, "reset before HEADERS")
            XCTAssertEqual(resetResponse.reset, .internalError)
            for (name, response, expected) in [("a", aResponse, Self.a), ("b", bResponse, Self.b), ("slow", slowResponse, Self.slow)] {
                XCTAssertEqual(response.status, "200", name)
                XCTAssertTrue(response.ended, name)
                XCTAssertNil(response.reset, name)
                XCTAssertTrue(response.body == expected, "\(name): the body, byte for byte (\(response.body.count) of \(expected.count) bytes)")
                XCTAssertEqual(response.headers?.first(name: "content-length"), String(expected.count), name)
            }
            XCTAssertFalse(client.isClosed, "the connection stays open")
            let again = try await client.send("/b")
            XCTAssertTrue(again.body == Self.b, "and serves further streams")
        }
        let entries = stubs.journal.interactions
        XCTAssertEqual(entries.count, 5)
        XCTAssertTrue(entries.allSatisfy { $0.httpVersion == .http2 })
        XCTAssertEqual(Set(entries.map(\.request.url.host)), ["img.example.com"], ":authority is the host")
        let byStub = Dictionary(grouping: entries, by: { $0.stubName ?? "" })
        XCTAssertEqual(byStub["reset"]?.first?.fault, .connectionReset)
        XCTAssertEqual(byStub["a"]?.first?.bodyBytesSent, 100_000)
        XCTAssertEqual(byStub["b"]?.map(\.outcome), [.completed, .completed])
        let slowEntry = try XCTUnwrap(byStub["slow"]?.first)
        XCTAssertEqual(slowEntry.outcome, .completed)
        XCTAssertGreaterThanOrEqual(slowEntry.timing.wait, .milliseconds(290), "each stream has its own timings")
        XCTAssertLessThan(try XCTUnwrap(byStub["a"]?.first).timing.wait, .milliseconds(290), "a did not wait for slow")
    }

    func testStreamFaultsAsSpecTenSays() async throws {
        let stubs = makeStubs()
        try await withClient(stubs, validatesContentLength: false) { client in
            let empty = try await client.send("/empty")
            XCTAssertNil(empty.headers, "RST_STREAM before HEADERS")
            XCTAssertEqual(empty.reset, .noError)

            let cut = try await client.send("/cut")
            XCTAssertEqual(cut.status, "200")
            XCTAssertEqual(cut.headers?.first(name: "content-length"), "100000")
            XCTAssertTrue(cut.body == Array(Self.a.prefix(1_000)), "DATA up to the count: \(cut.body.count) bytes")
            XCTAssertEqual(cut.reset, .internalError, "then RST_STREAM")

            let malformed = try await client.send("/malformed")
            XCTAssertEqual(malformed.status, "200")
            let declared = try XCTUnwrap(malformed.headers?.first(name: "content-length").flatMap(Int.init))
            XCTAssertGreaterThan(malformed.body.count, declared, "DATA beyond the declared content-length")
            XCTAssertTrue(malformed.ended)

            // The held stream never answers; a sibling started after it still does.
            let silent = client.start("/silent", timeout: .milliseconds(800))
            let b = try await client.send("/b")
            XCTAssertTrue(b.body == Self.b)
            do {
                let response = try await silent.get()
                XCTFail("no-response answered: \(response)")
            } catch ChannelError.connectTimeout {}
            XCTAssertFalse(client.isClosed)
        }
        let outcomes = Dictionary(uniqueKeysWithValues: stubs.journal.interactions.map { ($0.stubName ?? "", $0.outcome) })
        XCTAssertEqual(outcomes["empty"], .fault(.emptyResponse))
        XCTAssertEqual(outcomes["cut"], .truncated(bytes: 1_000))
        XCTAssertEqual(outcomes["malformed"], .fault(.malformedChunk))
        XCTAssertEqual(outcomes["silent"], .fault(.noResponse))
        XCTAssertEqual(outcomes["b"], .completed)
    }

    func testAContentLengthValidatingClientRejectsMalformedChunk() async throws {
        try await withClient(makeStubs()) { client in
            let malformed = try await client.send("/malformed")
            XCTAssertFalse(malformed.ended, "NIO's client refuses DATA beyond content-length")
            XCTAssertFalse(malformed.body.count > Int(malformed.headers?.first(name: "content-length") ?? "0") ?? 0)
        }
    }

    func testGoawayLetsTheStreamsInFlightFinishThenCloses() async throws {
        let stubs = makeStubs()
        try await withClient(stubs) { client in
            let slow = client.start("/slow")
            try await Task.sleep(for: .milliseconds(50))
            let bye = try await client.send("/bye")
            XCTAssertEqual(bye.status, "200", "the goaway stream is answered")
            XCTAssertTrue(bye.ended)
            let slowResponse = try await slow.get()
            XCTAssertTrue(slowResponse.body == Self.slow, "the stream in flight finishes whole: \(slowResponse.body.count) bytes")
            XCTAssertTrue(slowResponse.ended)
            let goAways = client.goAwaysReceived
            XCTAssertFalse(goAways.isEmpty, "GOAWAY was sent")
            XCTAssertEqual(goAways.first, 3, "naming the last stream opened: slow is 1, bye 3")
            for _ in 0..<100 where !client.isClosed { try await Task.sleep(for: .milliseconds(20)) }
            XCTAssertTrue(client.isClosed, "the connection closes once they are done")
        }
        let bye = try XCTUnwrap(stubs.journal.interactions.first { $0.stubName == "bye" })
        XCTAssertEqual(bye.fault, .goaway)
        XCTAssertEqual(bye.status, 200)
        XCTAssertEqual(stubs.journal.interactions.first { $0.stubName == "slow" }?.outcome, .completed)
    }

    func testRandomDataGarblesTheWholeConnection() async throws {
        let stubs = makeStubs()
        try await withClient(stubs) { client in
            let slow = client.start("/slow")
            let garbage = try await client.send("/garbage")
            XCTAssertNil(garbage.headers)
            let slowResponse = try await slow.get()
            XCTAssertFalse(slowResponse.ended, "the sibling dies with the connection")
            for _ in 0..<100 where !client.isClosed { try await Task.sleep(for: .milliseconds(20)) }
            XCTAssertTrue(client.isClosed)
        }
        XCTAssertEqual(stubs.journal.interactions.first { $0.stubName == "garbage" }?.fault, .randomDataThenClose)
    }

    func testManyStreamsAtOnceAreEachJournaled() async throws {
        let stubs = makeStubs()
        try await withClient(stubs) { client in
            let futures = (0..<60).map { client.start($0 % 2 == 0 ? "/a" : "/b") }
            for (index, future) in futures.enumerated() {
                let response = try await future.get()
                XCTAssertTrue(response.body == (index % 2 == 0 ? Self.a : Self.b), "stream \(index): \(response.body.count) bytes")
            }
        }
        let entries = stubs.journal.interactions
        XCTAssertEqual(entries.count, 60)
        XCTAssertTrue(entries.allSatisfy { $0.httpVersion == .http2 && $0.outcome == .completed })
        XCTAssertEqual(entries.map(\.bodyBytesSent).reduce(0, +), 30 * 100_000 + 30 * 20_000)
    }

    /// A response's per-response fields (ETag, Last-Modified, Content-Length) reach the client
    /// as HPACK literals it must not add to its dynamic table, and the fields every response
    /// shares (Content-Type, Cache-Control) as indexable ones: 1,000 stubs each indexing their
    /// own ETag kept both ends' tables churning. A rendering sent right after itself has them
    /// indexable (a client repeating a URL). The values arrive whole on every response.
    func testPerResponseFieldsAreNotIndexedAndSharedOnesAre() async throws {
        let stubs = StubRegistry()
        for (name, tag) in [("one", "\"v1\""), ("two", "\"v2\"")] {
            stubs.stub(.path("/\(name)"), named: name, response: .data(Data(Self.b.prefix(name == "one" ? 1_000 : 2_000)), contentType: "image/png").headers([
                "ETag": tag, "Last-Modified": "Tue, 10 Nov 2026 10:00:0\(name == "one" ? 1 : 2) GMT", "Cache-Control": "max-age=60",
            ]))
        }
        try await withServer(stubs) { server in
            let client = try await HTTP2TestClient.connect(port: server.port)
            for path in ["/one", "/two", "/one"] {
                let response = try await client.send(path)
                XCTAssertEqual(response.status, "200")
                let headers = try XCTUnwrap(response.headers)
                let fields = Dictionary(headers.map { ($0.name, ($0.value, $0.indexable)) }, uniquingKeysWith: { first, _ in first })
                let one = path == "/one"
                XCTAssertEqual(fields["etag"]?.0, one ? "\"v1\"" : "\"v2\"")
                XCTAssertEqual(fields["last-modified"]?.0, "Tue, 10 Nov 2026 10:00:0\(one ? 1 : 2) GMT")
                XCTAssertEqual(fields["content-length"]?.0, one ? "1000" : "2000")
                XCTAssertEqual(response.body, Array(Self.b.prefix(one ? 1_000 : 2_000)))
                XCTAssertEqual(fields["x-understudy-stub"]?.0, one ? "one" : "two")
                for name in ["etag", "last-modified", "content-length", "x-understudy-stub"] {
                    XCTAssertEqual(fields[name]?.1, .nonIndexable, "\(name) of \(path) is sent without indexing")
                }
                for name in ["content-type", "cache-control"] {
                    XCTAssertEqual(fields[name]?.1, .indexable, "\(name) of \(path) may be indexed")
                }
            }
            // The same rendering again, right after itself: a client repeating a URL gets its
            // fields indexed, then as indexes (both decode as indexable), with the same values.
            for round in 1...2 {
                let response = try await client.send("/one")
                let headers = try XCTUnwrap(response.headers)
                let fields = Dictionary(headers.map { ($0.name, ($0.value, $0.indexable)) }, uniquingKeysWith: { first, _ in first })
                XCTAssertEqual(fields["etag"]?.0, "\"v1\"")
                XCTAssertEqual(fields["last-modified"]?.0, "Tue, 10 Nov 2026 10:00:01 GMT")
                XCTAssertEqual(fields["content-length"]?.0, "1000")
                XCTAssertEqual(response.body, Array(Self.b.prefix(1_000)))
                for name in ["etag", "last-modified", "content-length", "x-understudy-stub"] {
                    XCTAssertEqual(fields[name]?.1, .indexable, "\(name) of a repeat (round \(round)) is indexable")
                }
            }
            await client.close()
        }
    }

    func testRequestBodiesAndTheBodyLimit() async throws {
        let stubs = StubRegistry()
        stubs.stub(.method("POST") && .path("/upload"), named: "upload", response: .text("thanks"))
        try await withServer(stubs, configuration: .init(maxBodySize: 100)) { server in
            let client = try await HTTP2TestClient.connect(port: server.port)
            let small = try await client.send("/upload", method: "POST", body: Array(repeating: 65, count: 100))
            XCTAssertEqual(small.status, "200")
            XCTAssertEqual(String(decoding: small.body, as: UTF8.self), "thanks")
            let large = try await client.send("/upload", method: "POST", body: Array(repeating: 65, count: 101))
            XCTAssertEqual(large.status, "413")
            XCTAssertEqual(String(decoding: large.body, as: UTF8.self), "request body over the limit of 100 bytes\n")
            XCTAssertNil(large.headers?.first(name: "connection"), "no Connection header on HTTP/2")
            await client.close()
        }
        let entries = stubs.journal.interactions
        XCTAssertEqual(entries.map(\.status), [200, 413])
        XCTAssertEqual(entries.first?.request.body, Data(repeating: 65, count: 100))
        XCTAssertEqual(entries.last?.outcome, .failed("request body over the limit of 100 bytes"))
    }

    /// Request bodies larger than the stream's and the connection's flow-control windows
    /// (65,535 bytes each, RFC 9113 section 6.9.2) arrive whole, several at once on one
    /// connection: the server gives the client more window as it reads. Without WINDOW_UPDATE
    /// frames the uploads stall at 64 KB and time out.
    func testRequestBodiesLargerThanTheFlowControlWindowsArriveWhole() async throws {
        let stubs = StubRegistry()
        stubs.stub(.method("POST") && .path("/upload"), named: "upload", response: .text("thanks"))
        let bodies = (1...3).map { Self.bytes(300_000 + $0, seed: UInt8($0)) }
        try await withServer(stubs, configuration: .init(bodyTimeout: .seconds(5))) { server in
            let client = try await HTTP2TestClient.connect(port: server.port)
            let uploads = bodies.map { client.start("/upload", method: "POST", body: $0) }
            for upload in uploads {
                let response = try await upload.get()
                XCTAssertEqual(response.status, "200")
                XCTAssertEqual(String(decoding: response.body, as: UTF8.self), "thanks")
            }
            let after = try await client.send("/upload", method: "POST", body: bodies[0])
            XCTAssertEqual(after.status, "200", "the connection's window is given back as well")
            await client.close()
        }
        let received = stubs.journal.interactions.compactMap(\.request.body)
        XCTAssertEqual(received.count, 4)
        XCTAssertEqual(Set(received), Set(bodies.map { Data($0) }), "each body, byte for byte")
    }

    /// A stream whose body stops arriving gets 408 after the body timeout and is reset; a
    /// sibling stream on the same connection, asked for meanwhile, is answered whole.
    func testAStalledRequestBodyTimesOutOnItsOwnStream() async throws {
        let stubs = makeStubs()
        stubs.stub(.method("POST") && .path("/upload"), named: "upload", response: .text("thanks"))
        try await withServer(stubs, configuration: .init(bodyTimeout: .milliseconds(300))) { server in
            let client = try await HTTP2TestClient.connect(port: server.port)
            let stalled = client.start("/upload", method: "POST", body: Array(repeating: 65, count: 10), endsStream: false, timeout: .seconds(5))
            let sibling = try await client.send("/b")
            XCTAssertTrue(sibling.body == Self.b, "the other stream is untouched")
            let refused = try await stalled.get()
            XCTAssertEqual(refused.status, "408")
            XCTAssertEqual(String(decoding: refused.body, as: UTF8.self), "request body not received within 300ms\n")
            XCTAssertFalse(client.isClosed, "the connection lives on")
            let after = try await client.send("/b")
            XCTAssertTrue(after.body == Self.b)
            await client.close()
        }
        let timedOut = stubs.journal.interactions.filter { $0.request.url.path == "/upload" }
        XCTAssertEqual(timedOut.map(\.status), [408])
        XCTAssertEqual(timedOut.first?.outcome, .failed("request body not received within 300ms"))
        XCTAssertEqual(timedOut.first?.httpVersion, .http2)
    }

    /// A connection with no stream open for the head timeout gets GOAWAY and is closed, as an
    /// idle HTTP/1.1 connection is; one busy with a stream is not.
    func testAnHTTP2ConnectionWithNoStreamForTheHeadTimeoutIsClosedWithGoAway() async throws {
        let stubs = makeStubs()
        stubs.stub(.path("/slow"), named: "slow", response: .text("late").delayed(by: .milliseconds(600)))
        try await withServer(stubs, configuration: .init(requestHeadTimeout: .milliseconds(300))) { server in
            let idle = try await HTTP2TestClient.connect(port: server.port)
            let busy = try await HTTP2TestClient.connect(port: server.port)
            let slow = try await busy.send("/slow")
            XCTAssertEqual(String(decoding: slow.body, as: UTF8.self), "late", "a stream in flight outlasts the timeout")
            try await Task.sleep(for: .milliseconds(200))
            XCTAssertFalse(busy.isClosed, "the count starts again when the last stream ends")
            let deadline = ContinuousClock.now + .seconds(5)
            while !idle.isClosed, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
            XCTAssertTrue(idle.isClosed)
            XCTAssertEqual(idle.goAwaysReceived.first, HTTP2StreamID(0), "GOAWAY first, naming no stream")
            await busy.close()
        }
    }
}
