import Foundation
import Understudy
import UnderstudyURLProtocol
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Redirects are followed inside the protocol on Linux, with URLSession's method rules.
final class URLSessionRedirectTests: XCTestCase {
    func testAChainIsFollowedAndEveryHopJournaled() async throws {
        let stubs = StubRegistry()
        stubs.stub(.path("/old.png"), named: "old", response: .redirect(to: "/older/../new.png", status: 301))
        stubs.stub(.path("/new.png"), named: "new", response: .redirect(to: "https://cdn.example.com/final.png", status: 302))
        stubs.stub(.host("cdn.example.com") && .path("/final.png"), named: "final", response: .text("final"))
        let (data, response) = try await URLSession(configuration: .stubbed(by: stubs)).data(from: url("http://img.example.com/old.png"))
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "final")
        XCTAssertEqual(response.url?.absoluteString, "https://cdn.example.com/final.png")
        let hops = stubs.journal.interactions
        XCTAssertEqual(hops.map(\.stubName), ["old", "new", "final"])
        XCTAssertEqual(hops.map(\.status), [301, 302, 200])
        XCTAssertEqual(hops.map(\.redirectedFrom), [nil, hops[0].id, hops[1].id])
        XCTAssertEqual(hops[1].request.url.absoluteString, "http://img.example.com/new.png")
    }

    func testPostBecomesGetOn302And303ButKeepsItsBodyOn307And308() async throws {
        for (status, expectedMethod, keepsBody) in [(301, "GET", false), (302, "GET", false), (303, "GET", false), (307, "POST", true), (308, "POST", true)] {
            let stubs = StubRegistry()
            stubs.stub(.path("/submit"), response: .redirect(to: "/done", status: status))
            stubs.stub(.path("/done")) { request in
                .text("\(request.method) \(request.body.map { String(decoding: $0, as: UTF8.self) } ?? "no body")")
            }
            var request = URLRequest(url: url("http://x.test/submit"))
            request.httpMethod = "POST"
            request.httpBody = Data("payload".utf8)
            let (data, _) = try await URLSession(configuration: .stubbed(by: stubs)).data(for: request)
            XCTAssertEqual(String(decoding: data, as: UTF8.self), keepsBody ? "\(expectedMethod) payload" : "\(expectedMethod) no body", "status \(status)")
        }
    }

    func testMoreThanSixteenHopsFails() async throws {
        let stubs = StubRegistry()
        stubs.stub(.pathPrefix("/hop/")) { request in
            let n = Int(request.path.dropFirst(5))!
            return .redirect(to: "/hop/\(n + 1)", status: 302)
        }
        let recorder = await record(URLRequest(url: url("http://x.test/hop/0")), stubs: stubs)
        XCTAssertEqual(recorder.error?.code, .httpTooManyRedirects)
        XCTAssertEqual(stubs.journal.count, 17, "the original request and 16 followed hops")
    }

    func testSixteenHopsStillSucceed() async throws {
        let stubs = StubRegistry()
        stubs.stub(.pathPrefix("/hop/")) { request in
            let n = Int(request.path.dropFirst(5))!
            return n == 16 ? .text("arrived") : .redirect(to: "/hop/\(n + 1)", status: 307)
        }
        let (data, _) = try await URLSession(configuration: .stubbed(by: stubs)).data(from: url("http://x.test/hop/0"))
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "arrived")
    }

    func testARedirectToAnUnstubbedURLFailsWithTheReport() async {
        let stubs = StubRegistry()
        stubs.stub(.path("/a"), named: "a", response: .redirect(to: "/nowhere"))
        let recorder = await record(URLRequest(url: url("http://x.test/a")), stubs: stubs)
        XCTAssertEqual(recorder.error?.code, .resourceUnavailable)
        XCTAssertEqual(stubs.journal.unmatched.map(\.request.path), ["/nowhere"])
    }
}
