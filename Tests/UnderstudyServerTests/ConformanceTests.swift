import Foundation
import Understudy
import UnderstudyServer
import UnderstudyURLProtocol
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One test, two transports: every case runs in-process (the URL protocol) and over the wire
/// (the NIO server) with the same stubs and the same URLSession calls, so the two cannot drift.
final class ConformanceTests: XCTestCase {
    enum Transport: String, CaseIterable {
        case inProcess, server
    }

    /// A session and base URL for `transport`, torn down after `body`.
    func each(_ setUp: (StubRegistry) -> Void, _ body: (Transport, URLSession, URL, StubRegistry) async throws -> Void) async throws {
        for transport in Transport.allCases {
            let stubs = StubRegistry()
            setUp(stubs)
            switch transport {
            case .inProcess:
                let session = URLSession(configuration: .stubbed(by: stubs, unmatched: .notFound))
                try await body(transport, session, URL(string: "http://127.0.0.1:1")!, stubs)
                session.invalidateAndCancel()
            case .server:
                let server = try await StubServer.start(serving: stubs)
                let session = URLSession(configuration: .ephemeral)
                do {
                    try await body(transport, session, server.baseURL, stubs)
                } catch {
                    try await server.stop()
                    throw error
                }
                session.invalidateAndCancel()
                try await server.stop()
            }
        }
    }

    func testTextStatusAndHeaders() async throws {
        try await each({ $0.stub(.path("/t"), named: "t", response: .text("hello").status(203).headers(["X-A": "1"])) }) { transport, session, base, stubs in
            let (data, response) = try await session.data(from: base.appendingPathComponent("t"))
            let http = try XCTUnwrap(response as? HTTPURLResponse)
            XCTAssertEqual(http.statusCode, 203, transport.rawValue)
            XCTAssertEqual(http.value(forHTTPHeaderField: "X-A"), "1", transport.rawValue)
            XCTAssertEqual(http.value(forHTTPHeaderField: "Content-Type"), "text/plain; charset=utf-8", transport.rawValue)
            XCTAssertEqual(http.value(forHTTPHeaderField: "X-Understudy-Stub"), "t", transport.rawValue)
            XCTAssertEqual(String(decoding: data, as: UTF8.self), "hello", transport.rawValue)
            XCTAssertEqual(stubs.journal.interactions.map(\.bodyBytesSent), [5], transport.rawValue)
        }
    }

    func testJSONBodyMatchingOnPost() async throws {
        try await each({ $0.stub(.method("POST") && .jsonBody(["q": "cat"]), response: .json(["hits": 3])) }) { transport, session, base, _ in
            var request = URLRequest(url: base.appendingPathComponent("search"))
            request.httpMethod = "POST"
            request.httpBody = Data(#"{"q":"cat"}"#.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            let (data, _) = try await session.data(for: request)
            XCTAssertEqual(try JSONValue(parsing: data), ["hits": 3], transport.rawValue)
        }
    }

    func testRedirectChainIsFollowedAndEachHopJournaled() async throws {
        try await each({ stubs in
            stubs.stub(.path("/a"), named: "a", response: .redirect(to: "/b", status: 301))
            stubs.stub(.path("/b"), named: "b", response: .redirect(to: "c", status: 307))
            stubs.stub(.path("/c"), named: "c", response: .text("end"))
        }) { transport, session, base, stubs in
            let (data, response) = try await session.data(from: base.appendingPathComponent("a"))
            XCTAssertEqual(String(decoding: data, as: UTF8.self), "end", transport.rawValue)
            XCTAssertEqual(response.url?.path, "/c", transport.rawValue)
            XCTAssertEqual(stubs.journal.interactions.map(\.stubName), ["a", "b", "c"], transport.rawValue)
            XCTAssertEqual(stubs.journal.interactions.map(\.status), [301, 307, 200], transport.rawValue)
        }
    }

    func testHeadAndUnmatched404() async throws {
        try await each({ $0.stub(.path("/p.png") && .method("GET"), named: "p", response: .data(Data(count: 50))) }) { transport, session, base, stubs in
            var head = URLRequest(url: base.appendingPathComponent("p.png"))
            head.httpMethod = "HEAD"
            let (headData, headResponse) = try await session.data(for: head)
            XCTAssertEqual(headData.count, 0, transport.rawValue)
            XCTAssertEqual((headResponse as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Length"), "50", transport.rawValue)
            let (body, missing) = try await session.data(from: base.appendingPathComponent("q.png"))
            XCTAssertEqual((missing as? HTTPURLResponse)?.statusCode, 404, transport.rawValue)
            XCTAssertTrue(String(decoding: body, as: UTF8.self).contains(#"1. "p" (1 of 2 parts matched): path is /p.png (got /q.png)"#), transport.rawValue)
            XCTAssertEqual(stubs.journal.unmatched.count, 1, transport.rawValue)
        }
    }

    func testBandwidthDeliversInSlices() async throws {
        try await each({ $0.stub(.path("/big"), response: .data(Data(count: 30_000)).throttled(to: .bytesPerSecond(100_000))) }) { transport, session, base, _ in
            let start = Date()
            let (data, _) = try await session.data(from: base.appendingPathComponent("big"))
            XCTAssertEqual(data.count, 30_000, transport.rawValue)
            XCTAssertGreaterThan(Date().timeIntervalSince(start), 0.2, transport.rawValue)
        }
    }

    /// Both transports fail every fault. In-process the code is ``Fault/urlErrorCode``; over the
    /// wire it is what URLSession itself reports, which on Linux (libcurl underneath) is vaguer
    /// for three of them: the README (in-process) and docs/faults.md (over the wire) document both,
    /// and they are held to it here.
    func testFaultsFailOnBothTransportsWithTheDocumentedCodes() async throws {
        let faults: [(String, StubResponse, inProcess: URLError.Code, linuxWire: URLError.Code)] = [
            ("reset", .failure(.connectionReset), .networkConnectionLost, .networkConnectionLost),
            ("empty", .failure(.emptyResponse), .badServerResponse, .badServerResponse),
            ("chunk", .failure(.malformedChunk), .cannotParseResponse, .unknown),
            ("garbage", .failure(.randomDataThenClose), .cannotParseResponse, .unsupportedURL),
            ("cut", .data(Data(count: 5_000)).truncated(after: 100), .networkConnectionLost, .unknown),
        ]
        try await each({ stubs in
            for fault in faults { stubs.stub(.path("/" + fault.0), response: fault.1) }
        }) { transport, session, base, stubs in
            for fault in faults {
                do {
                    _ = try await session.data(from: base.appendingPathComponent(fault.0))
                    XCTFail("\(transport) /\(fault.0) succeeded")
                } catch let error as URLError {
                    #if canImport(FoundationNetworking)
                    let expected = transport == .inProcess ? fault.inProcess : fault.linuxWire
                    #else
                    let expected = fault.inProcess
                    #endif
                    XCTAssertEqual(error.code, expected, "\(transport) /\(fault.0)")
                }
            }
            XCTAssertEqual(stubs.journal.interactions.map(\.outcome.description), [
                "fault connection-reset", "fault empty-response", "fault malformed-chunk",
                "fault random-data-then-close", "truncated after 100 bytes",
            ], transport.rawValue)
        }
    }
}
