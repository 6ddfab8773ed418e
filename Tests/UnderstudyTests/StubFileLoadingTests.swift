import Foundation
import Understudy
import XCTest

/// Valid stub files load, and their stubs answer as the files say.
final class StubFileLoadingTests: XCTestCase {
    private var fixtures: URL {
        Bundle.module.url(forResource: "Fixtures", withExtension: nil)!.appendingPathComponent("StubFiles")
    }

    private func loadedFixtures() throws -> StubRegistry {
        let registry = StubRegistry()
        try registry.load(from: fixtures)
        return registry
    }

    func testFixturesLoadInByteWisePathOrderWithDefaultNames() throws {
        let loaded = try StubFileLoader.load(from: fixtures)
        XCTAssertEqual(loaded.files.map { ($0 as NSString).lastPathComponent }, ["01-images.yaml", "02-api.json", "03-override.yml"])
        XCTAssertEqual(loaded.stubs.map(\.name), [
            "any-png", "cat-png", "webp-for-webp-clients", "old-cat", "01-images-5", "01-images-6", "search", "steps",
            "03-override-1",
        ])
        XCTAssertEqual(loaded.stubs.map(\.priority), [0, 0, 5, 0, 0, 0, 0, 0, 0])
        XCTAssertEqual(loaded.stubs.map(\.times), [nil, nil, nil, nil, nil, nil, nil, 4, nil])
    }

    func testFileResponseWithHeadersAndMethodList() async throws {
        let registry = try loadedFixtures()
        let expected = try Data(contentsOf: fixtures.appendingPathComponent("images/cat.png"))
        let response = try await registry.answer("http://img.example.com/cats/1.png")
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.body, expected)
        XCTAssertEqual(response.headers["Content-Type"], "image/png")
        XCTAssertEqual(response.headers["Cache-Control"], "max-age=60")
        XCTAssertEqual(response.headers["X-Understudy-Stub"], "cat-png")
        let head = try await registry.answer("http://a.b.example.com/cats/1.png", method: "HEAD")
        XCTAssertEqual(head.stubName, "cat-png")
        // POST is not in [GET, HEAD]: the generic png stub answers instead.
        let post = try await registry.answer("http://img.example.com/cats/1.png", method: "POST")
        XCTAssertEqual(post.status, 418)
        XCTAssertEqual(post.text, "generic png")
        XCTAssertEqual(post.headers["Content-Type"], "text/plain; charset=utf-8")
        // `*.example.com` does not match example.com itself.
        let bare = try await registry.answer("http://example.com/cats/1.png")
        XCTAssertEqual(bare.stubName, "any-png")
    }

    func testBase64BodyIsSniffedAndPriorityWins() async throws {
        let registry = try loadedFixtures()
        let webp = try await registry.answer("https://cdn.test/a.WebP", headers: ["Accept": "image/webp,*/*"])
        XCTAssertEqual(webp.stubName, "webp-for-webp-clients")
        XCTAssertEqual(webp.headers["Content-Type"], "image/webp")
        XCTAssertEqual(webp.body, Data(base64Encoded: "UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA=="))
        let noWebP = await registry.isUnmatched("https://cdn.test/a.webp", headers: ["Accept": "image/png"])
        XCTAssertTrue(noWebP)
        let plainHTTP = await registry.isUnmatched("http://cdn.test/a.webp")
        XCTAssertTrue(plainHTTP)
    }

    func testRedirectStatusAndFaultWithDelay() async throws {
        let registry = try loadedFixtures()
        let redirect = try await registry.answer("http://x.test/old.png")
        XCTAssertEqual(redirect.status, 301)
        XCTAssertEqual(redirect.headers["Location"], "/cats/1.png")
        XCTAssertTrue(redirect.body.isEmpty)

        let gone = try await registry.answer("http://x.test/gone/a.txt")
        XCTAssertEqual(gone.status, 410)
        XCTAssertEqual(gone.stubName, "01-images-5")

        let flaky = try await registry.answer("http://x.test/flaky/12")
        XCTAssertEqual(flaky.fault, .connectionReset)
        XCTAssertEqual(flaky.delay, .milliseconds(5))
        let notFlaky = await registry.isUnmatched("http://x.test/flaky/12a")
        XCTAssertTrue(notFlaky)
    }

    func testJSONFileMatcherAndResponse() async throws {
        let registry = try loadedFixtures()
        let headers: HeaderFields = ["X-Client": "ios", "Authorization": "Bearer abc", "Accept": "application/json"]
        let body = Data(#"{"tags": ["a", "b"], "page": 1}"#.utf8)
        let response = try await registry.answer(
            "http://api.test/search?debug&q=cats", method: "POST", headers: headers, body: body
        )
        XCTAssertEqual(response.status, 201)
        XCTAssertEqual(response.text, #"{"results":[],"total":0}"#)
        XCTAssertEqual(response.headers["Content-Type"], "application/json")
        XCTAssertEqual(response.headers["X-Total"], "0")
        XCTAssertEqual(response.headers.values(for: "Set-Cookie"), ["a=1", "b=2"])
        XCTAssertEqual(response.bandwidth, .bytesPerSecond(64_000))
        XCTAssertEqual(response.truncateAfter, 5)

        // Each part of the matcher is required.
        let misses: [(String, HeaderFields, String)] = [
            ("http://api.test/search?q=cats", headers, "debug missing"),
            ("http://api.test/search?debug&q=dogs", headers, "other q"),
            ("http://api.test/search?debug&q=cats", headers.merging(["X-Debug": "1"]), "X-Debug present"),
            ("http://api.test/search?debug&q=cats", headers.merging(["Authorization": "Basic abc"]), "not Bearer"),
            ("http://api.test/search?debug&q=cats", headers.merging(["Accept": "text/html"]), "Accept without json"),
        ]
        for (url, headers, reason) in misses {
            let request = StubRequest(method: "POST", url: URL(string: url)!, headers: headers, body: body)
            guard case .unmatched = await registry.respond(to: request).kind else { return XCTFail("matched although \(reason)") }
        }
        let otherBody = StubRequest(
            method: "POST", url: URL(string: "http://api.test/search?debug&q=cats")!, headers: headers,
            body: Data(#"{"page": 2, "tags": ["a", "b"]}"#.utf8)
        )
        guard case .unmatched = await registry.respond(to: otherBody).kind else {
            return XCTFail("matched another JSON body")
        }
    }

    func testSequenceServesInOrderThenTheLastRepeatsUntilTimesRunOut() async throws {
        let registry = try loadedFixtures()
        var seen: [String] = []
        for _ in 0..<4 {
            let response = try await registry.answer("http://x.test/steps")
            seen.append("\(response.status) \(response.text) \(response.headers["Retry-After"] ?? "-")")
        }
        XCTAssertEqual(seen, ["503  1", "200 second -", #"200 {"step":3} -"#, #"200 {"step":3} -"#])
        let exhausted = await registry.isUnmatched("http://x.test/steps")
        XCTAssertTrue(exhausted, "times: 4 stops the stub after four uses")
    }

    func testLaterFileWinsAmongEqualPrioritiesAndPathsMayClimbInsideTheDirectory() async throws {
        let registry = try loadedFixtures()
        let dog = try await registry.answer("http://x.test/dogs/rex.png")
        XCTAssertEqual(dog.stubName, "03-override-1")
        XCTAssertEqual(dog.headers["Content-Type"], "image/x-dog", "headers given in the stub win")
        XCTAssertEqual(dog.body, try Data(contentsOf: fixtures.appendingPathComponent("images/cat.png")))
        let other = try await registry.answer("http://x.test/cats/2.png")
        XCTAssertEqual(other.stubName, "any-png")
    }

    func testPrecedenceFollowsFileOrderThenPriority() async throws {
        let sandbox = try StubFileSandbox()
        try sandbox.write("b.yaml", "stubs:\n  - request: { path: /a }\n    response: { body: b1 }\n  - request: { path: /a }\n    response: { body: b2 }\n")
        try sandbox.write("a.yaml", "stubs:\n  - request: { path: /a }\n    priority: 1\n    times: 1\n    response: { body: a-high }\n")
        try sandbox.write("B.yaml", "stubs:\n  - request: { path: /a }\n    response: { body: capital-B }\n")
        let registry = StubRegistry()
        try registry.load(from: sandbox.stubs)
        // Byte-wise order: B.yaml, a.yaml, b.yaml; the priority-1 stub first while it lasts.
        var bodies: [String] = []
        for _ in 0..<2 {
            bodies.append(try await registry.answer("http://x.test/a").text)
        }
        XCTAssertEqual(bodies, ["a-high", "b2"])
        XCTAssertEqual(registry.stubs.map(\.name), ["a-1", "b-2", "b-1", "B-1"])
    }

    func testMinimalStubsAnswerAnEmpty200() async throws {
        let sandbox = try StubFileSandbox()
        try sandbox.write("min.yaml", "stubs:\n  - request: { path: /ping }\n  - request: { path: /nf }\n    response: { status: 404, headers: { X-Why: gone } }\n")
        let registry = StubRegistry()
        try registry.load(from: sandbox.stubs)
        let ping = try await registry.answer("http://x.test/ping")
        XCTAssertEqual(ping.status, 200)
        XCTAssertTrue(ping.body.isEmpty)
        XCTAssertEqual(ping.headers["Content-Length"], "0")
        let notFound = try await registry.answer("http://x.test/nf")
        XCTAssertEqual(notFound.status, 404)
        XCTAssertEqual(notFound.headers["X-Why"], "gone")
    }

    func testSingleFileLoadsAndNamesItsOwnPath() async throws {
        let sandbox = try StubFileSandbox()
        try sandbox.write("images/cat.png", pngBytes)
        try sandbox.write("one.yml", "stubs:\n  - request: { path: /c }\n    response: { file: images/cat.png, bandwidth: edge, delay: 0 }\n")
        let registry = StubRegistry()
        try registry.load(from: sandbox.relative("Stubs/one.yml"))
        let response = try await registry.answer("http://x.test/c")
        XCTAssertEqual(response.body, pngBytes)
        XCTAssertEqual(response.bandwidth, .edge)
        XCTAssertEqual(response.stubName, "one-1")

        try sandbox.write("bad.yml", "stubs:\n  - response: { fault: nope }\n")
        XCTAssertThrowsError(try StubFileLoader.load(from: sandbox.relative("Stubs/bad.yml"))) { error in
            XCTAssertEqual("\(error)", "Stubs/bad.yml:2: stubs[0].response.fault: unknown fault 'nope'; expected one of connection-reset, empty-response, malformed-chunk, random-data-then-close, no-response, goaway, disconnect-after-request, disconnect-during-request-body, disconnect-during-response-body, reset-during-response-body, shutdown-input-at-end, shutdown-output-at-end, slow-close, timeout, limit-data")
        }
    }

    func testBandwidthTakesANetworkProfilesNameForItsRateAlone() async throws {
        let sandbox = try StubFileSandbox()
        try sandbox.write("one.yml", "stubs:\n  - request: { path: /s }\n    response: { body: hi, bandwidth: slow-3g }\n")
        let registry = StubRegistry()
        try registry.load(from: sandbox.relative("Stubs/one.yml"))
        let response = try await registry.answer("http://x.test/s")
        XCTAssertEqual(response.bandwidth, NetworkProfile.slow3G.rate)
        XCTAssertEqual(response.bandwidth?.bytesPerSecond, 50_000)
        XCTAssertEqual(response.delay, .zero, "the profile's rate only, not its latency")
    }

    func testParsingTextForTheAdminAPI() throws {
        let stubs = try StubFileLoader.stubs(
            parsing: #"{"name": "one", "request": {"path": "/x"}, "response": {"status": 204}}"#,
            format: .json, allowsSingleStub: true
        )
        XCTAssertEqual(stubs.map(\.name), ["one"])
        let matcher = try StubFileLoader.requestMatcher(parsing: #"{"request": {"extension": "webp"}}"#, format: .json)
        XCTAssertTrue(matcher.matches(StubRequest("http://x.test/a.webp")!))
        XCTAssertFalse(matcher.matches(StubRequest("http://x.test/a.png")!))
        XCTAssertThrowsError(try StubFileLoader.requestMatcher(parsing: #"{"request": {"method": 5.5, "hots": 1}}"#, format: .json)) {
            XCTAssertEqual("\($0)", """
                request body:1: request.hots: unknown key 'hots'; expected one of method, scheme, host, path, pathPrefix, pathPattern, extension, query, headers, cookies, basicAuth, accepts, body
                """)
        }
        XCTAssertThrowsError(try StubFileLoader.stubs(parsing: "stubs:\n  - response: { file: a.png }\n", format: .yaml)) {
            XCTAssertEqual("\($0)", "request body:2: stubs[0].response.file: file 'a.png' cannot be used here; expected stubs loaded from a stub directory")
        }
    }
}

private extension HeaderFields {
    func merging(_ other: HeaderFields) -> HeaderFields {
        var copy = self
        copy.merge(other)
        return copy
    }
}
