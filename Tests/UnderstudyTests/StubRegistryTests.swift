import Foundation
import Understudy
import UnderstudyImages
import XCTest

final class StubRegistryTests: XCTestCase {
    func request(_ method: String, _ url: String) -> StubRequest {
        StubRequest(method: method, url: URL(string: url)!)
    }

    func request(_ url: String) -> StubRequest {
        request("GET", url)
    }

    func name(_ registry: StubRegistry, _ url: String, method: String = "GET") -> String? {
        registry.match(request(method, url))?.stubName
    }

    func testHighestPriorityWinsThenTheLastAdded() {
        let stubs = StubRegistry()
        stubs.stub(.pathExtension("png"), named: "first", response: .status(200))
        stubs.stub(.pathExtension("png"), named: "second", response: .status(200))
        XCTAssertEqual(name(stubs, "http://a.test/x.png"), "second")
        stubs.stub(.any, named: "important", priority: 5, response: .status(200))
        XCTAssertEqual(name(stubs, "http://a.test/x.png"), "important")
        stubs.stub(.path("/x.png"), named: "later-but-lower", response: .status(200))
        XCTAssertEqual(name(stubs, "http://a.test/x.png"), "important")
        XCTAssertEqual(stubs.stubs.map(\.name), ["important", "later-but-lower", "second", "first"])
    }

    func testRemoveByNameRemoveAllAndReplaceByName() {
        let stubs = StubRegistry()
        stubs.stub(.path("/a"), named: "a", response: .text("one"))
        stubs.stub(.path("/b"), named: "b", response: .status(200))
        XCTAssertTrue(stubs.removeStub(named: "b"))
        XCTAssertFalse(stubs.removeStub(named: "b"))
        XCTAssertNil(name(stubs, "http://a.test/b"))
        stubs.stub(.path("/a2"), named: "a", response: .text("two"))
        XCTAssertNil(name(stubs, "http://a.test/a"), "a stub added under a used name replaces the old one")
        XCTAssertEqual(name(stubs, "http://a.test/a2"), "a")
        stubs.removeAllStubs()
        XCTAssertTrue(stubs.stubs.isEmpty)
        XCTAssertNil(name(stubs, "http://a.test/a2"))
    }

    func testDefaultNamesSayWhereTheStubWasAddedAndStayUnique() {
        let stubs = StubRegistry()
        var names: [String] = []
        for i in 0..<3 {
            names.append(stubs.stub(.path("/\(i)"), response: .status(200)))
        }
        let line = #line - 2
        XCTAssertEqual(names, ["UnderstudyTests/StubRegistryTests.swift:\(line)", "UnderstudyTests/StubRegistryTests.swift:\(line) #2", "UnderstudyTests/StubRegistryTests.swift:\(line) #3"])
        XCTAssertEqual(stubs.stubs.count, 3)
    }

    func testTimesExpiresTheStubAndLetsTheNextOneAnswer() {
        let stubs = StubRegistry()
        stubs.stub(.any, named: "fallback", response: .status(200))
        stubs.stub(.path("/once"), named: "once", times: 2, response: .status(200))
        XCTAssertEqual(name(stubs, "http://a.test/once", method: "HEAD"), "once")
        XCTAssertEqual(name(stubs, "http://a.test/once"), "once")
        XCTAssertEqual(name(stubs, "http://a.test/once"), "fallback")
        XCTAssertEqual(stubs.useCounts["once"], 2)
    }

    func testSequenceStepsAreCountedUses() {
        let stubs = StubRegistry()
        stubs.stub(.any, named: "seq", responses: [.status(500), .status(201)])
        let statuses = (0..<4).map { _ -> Int in
            guard case .response(let response)? = stubs.match(request("http://a.test/"))?.answer else { return -1 }
            return response.statusCode
        }
        XCTAssertEqual(statuses, [500, 201, 201, 201])
    }

    func testNearMissesRankByDistanceAsWireMockDoesAndListWhatDiffered() {
        let stubs = StubRegistry()
        stubs.stub(.host("img.test") && .path("/a.png") && .method("POST"), named: "two-of-three", response: .status(200))
        stubs.stub(.host("img.test") && .path("/b.png"), named: "one-of-two", response: .status(200))
        stubs.stub(.host("other.test"), named: "none", response: .status(200))
        stubs.stub(.host("img.test") && .path("/z.png") && .method("PUT") && .scheme("http"), named: "two-of-four", response: .status(200))
        stubs.stub(.host("img.test") && .pathExtension("png"), named: "used-up", times: 1, response: .status(200))
        XCTAssertEqual(name(stubs, "http://img.test/a.png"), "used-up")
        let misses = stubs.nearMisses(for: request("http://img.test/a.png"), limit: 4)
        // The URL weighs 10 and the method 3: a path one letter off is nearer than a wrong method.
        XCTAssertEqual(misses.map(\.description), [
            #""used-up" (2 of 2 parts matched): used up (times)"#,
            #""one-of-two" (1 of 2 parts matched): path is /b.png (got /a.png)"#,
            #""two-of-three" (2 of 3 parts matched): method is POST (got GET)"#,
            #""two-of-four" (2 of 4 parts matched): path is /z.png (got /a.png); method is PUT (got GET)"#,
        ])
        XCTAssertEqual(misses.map { ($0.distance * 1000).rounded() / 1000 }, [0, 0.038, 0.231, 0.256])
        XCTAssertEqual(stubs.nearMisses(for: request("http://img.test/a.png")).count, 3)
    }

    func testTheResponderRendersTheAnswerAndReportsUnmatched() async {
        let stubs = StubRegistry()
        stubs.stub(.path("/r"), named: "r", response: .redirect(to: "/s", status: 308))
        guard let redirect = await stubs.respond(to: request("http://a.test/r")).stubResponse else {
            return XCTFail("expected a response")
        }
        XCTAssertEqual(redirect.status, 308)
        XCTAssertEqual(redirect.headers["Location"], "/s")
        XCTAssertEqual(redirect.headers["X-Understudy-Stub"], "r")
        let unmatched = await stubs.respond(to: request("http://a.test/q"))
        guard case .unmatched(let misses) = unmatched.kind else {
            return XCTFail("expected unmatched")
        }
        XCTAssertEqual(misses.map(\.stubName), ["r"])
    }

    /// The index must give exactly what a full scan in precedence order gives, for stubs that
    /// pin hosts, globs, extensions, methods and schemes in every combination.
    func testTheIndexAgreesWithAFullScan() {
        var generator = SplitMix64(seed: 42)
        let hosts = ["a.test", "b.test", "img.a.test", "x.img.a.test", "c.test"]
        let globs = ["*.a.test", "*.img.a.test", "*.test"]
        let extensions = ["png", "webp", "gif", ""]
        let methods = ["GET", "POST", "HEAD"]
        let stubs = StubRegistry()
        var matchers: [(String, RequestMatcher, Int)] = []
        for i in 0..<400 {
            var parts: [RequestMatcher] = []
            switch generator.next() % 4 {
            case 0: parts.append(.host(hosts[Int(generator.next() % 5)]))
            case 1: parts.append(.host(globs[Int(generator.next() % 3)]))
            case 2: parts.append(.host(hosts[Int(generator.next() % 5)]) || .host(globs[Int(generator.next() % 3)]))
            default: break
            }
            switch generator.next() % 4 {
            case 0: parts.append(.pathExtension(extensions[Int(generator.next() % 3)]))
            case 1: parts.append(.pathExtension("png") || .pathExtension("webp"))
            case 2: parts.append(.path("/p\(generator.next() % 3).\(extensions[Int(generator.next() % 4)])"))
            default: break
            }
            if generator.next() % 3 == 0 { parts.append(.method(methods[Int(generator.next() % 3)])) }
            if generator.next() % 4 == 0 { parts.append(.scheme(generator.next() % 2 == 0 ? "http" : "https")) }
            if generator.next() % 5 == 0 { parts.append(!.query("skip")) }
            let matcher = RequestMatcher.all(parts)
            let priority = Int(generator.next() % 3)
            stubs.stub(matcher, named: "s\(i)", priority: priority, response: .status(200))
            matchers.append(("s\(i)", matcher, priority))
        }
        let ordered = matchers.enumerated().sorted { l, r in
            l.element.2 != r.element.2 ? l.element.2 > r.element.2 : l.offset > r.offset
        }.map(\.element)
        var checked = 0
        for host in hosts + ["a.test.evil", "test"] {
            for ext in extensions + ["jpg"] {
                for method in methods {
                    for scheme in ["http", "https"] {
                        for query in ["", "?skip"] {
                            let path = "/p\(checked % 3)" + (ext.isEmpty ? "" : ".\(ext)")
                            let req = request(method, "\(scheme)://\(host)\(path)\(query)")
                            let expected = ordered.first { $0.1.matches(req) }?.0
                            XCTAssertEqual(stubs.match(req)?.stubName, expected, "\(req)")
                            checked += 1
                        }
                    }
                }
            }
        }
        XCTAssertEqual(checked, 7 * 5 * 3 * 2 * 2)
    }

    func testConcurrentMatchingCountsEveryUseExactlyOnce() async {
        let stubs = StubRegistry()
        stubs.stub(.any, named: "rest", response: .status(200))
        stubs.stub(.pathPrefix("/limited"), named: "limited", times: 500, response: .status(200))
        let names = await withTaskGroup(of: [String].self) { group in
            for _ in 0..<20 {
                group.addTask {
                    (0..<50).compactMap { i in stubs.match(StubRequest(url: URL(string: "http://a.test/limited/\(i)")!))?.stubName }
                }
            }
            return await group.reduce(into: []) { $0 += $1 }
        }
        XCTAssertEqual(names.count, 1_000)
        XCTAssertEqual(names.filter { $0 == "limited" }.count, 500)
        XCTAssertEqual(stubs.useCounts["limited"], 500)
    }
}
