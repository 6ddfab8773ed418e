import Foundation
import Understudy
import UnderstudyServer
import UnderstudyURLProtocol
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The admin API's journal endpoints: listing, filtering, counting, near misses, HAR export
/// and clearing, over a journal filled by real exchanges through a `StubServer` (and
/// in-process for a redirect hop).
final class AdminAPIJournalTests: AdminAPITestCase {
    // MARK: - Requests

    func testRequestsAreListedNewestFirstInWireMockShapeWithTheJournalFields() async throws {
        let registry = StubRegistry()
        registry.stub(.path("/a.png"), named: "a", response: .data(Data(count: 5), contentType: "image/png"))
        try await exchange(registry, "http://img.example.com/a.png", headers: [("Accept", "image/png"), ("X-B", "1"), ("accept", "*/*")])
        try await exchange(registry, "http://img.example.com/missing", method: "POST", body: Data("abc".utf8))
        let response = await send(AdminAPI(registry: registry, token: nil), "GET", "/__admin/requests")
        XCTAssertEqual(response.status, 200)
        let list = try decode(AdminJSON.RequestList.self, response)
        XCTAssertEqual(list.total, 2)
        XCTAssertEqual(list.meta.total, 2)
        XCTAssertEqual(list.requests.map(\.url), ["/missing", "/a.png"], "WireMock's order: newest first; url is path and query")
        let entries = list.requests.reversed().map(\.entry)
        XCTAssertEqual(entries.map(\.id), [1, 2])

        let matched = entries[0]
        XCTAssertEqual(matched.request, JournalEntry.Request(
            method: "GET", url: "http://img.example.com/a.png",
            headers: ["Host": "img.example.com", "Accept": "image/png, */*", "X-B": "1"], bodySize: 0
        ))
        XCTAssertEqual(matched.stub, "a")
        XCTAssertEqual(matched.response?.status, 200)
        XCTAssertEqual(matched.response?.bodySize, 5)
        XCTAssertEqual(matched.response?.headers["Content-Type"], "image/png")
        XCTAssertEqual(matched.outcome, "completed")
        XCTAssertEqual(matched.transport, "server")
        XCTAssertNil(matched.fault)
        XCTAssertNil(matched.redirectedFrom)

        let unmatched = entries[1]
        XCTAssertNil(unmatched.stub)
        XCTAssertEqual(unmatched.outcome, "unmatched")
        XCTAssertEqual(unmatched.response?.status, 404)
        XCTAssertEqual(unmatched.request.bodySize, 3)

        // The raw JSON: sorted keys, `stub: null` spelled out, ISO 8601 times with milliseconds.
        let raw = try text(response)
        // Understudy's entry, unchanged, under request.understudy.
        XCTAssertTrue(raw.contains(#""understudy":{"connection":1,"durationMs":"#), raw)
        XCTAssertTrue(raw.contains(#""request":{"bodySize":0,"headers":{"Accept":"image/png, */*","Host":"img.example.com","X-B":"1"},"method":"GET","url":"http://img.example.com/a.png"}"#), raw)
        XCTAssertTrue(raw.contains(#""stub":null"#), raw)
        XCTAssertTrue(raw.hasPrefix(#"{"meta":{"total":2},"requestJournalDisabled":false,"requests":["#), raw)
        let objects = try XCTUnwrap(JSONSerialization.jsonObject(with: response.body) as? [String: Any])
        XCTAssertEqual(objects.keys.sorted(), ["meta", "requestJournalDisabled", "requests"], "WireMock's Java client refuses any other field")
        let first = try XCTUnwrap((objects["requests"] as? [[String: Any]])?.last)
        XCTAssertEqual(first.keys.sorted(), ["id", "request", "response", "responseDefinition", "stubMapping", "wasMatched"])
        XCTAssertEqual(first["id"] as? String, "00000000-0000-4000-8000-000000000001")
        XCTAssertEqual(first["wasMatched"] as? Bool, true)
        XCTAssertEqual((first["response"] as? [String: Any])?.keys.sorted(), ["headers", "status"])
        XCTAssertEqual((first["stubMapping"] as? [String: Any])?["name"] as? String, "a")
        let request = try XCTUnwrap(first["request"] as? [String: Any])
        XCTAssertEqual(request.keys.sorted(), [
            "absoluteUrl", "browserProxyRequest", "headers", "loggedDate", "loggedDateString", "method", "understudy", "url",
        ])
        XCTAssertEqual((request["understudy"] as? [String: Any])?.keys.sorted(), [
            "connection", "durationMs", "exchange", "httpVersion", "id", "outcome", "request", "response", "stub", "time", "transport",
        ])
        XCTAssertEqual((request["understudy"] as? [String: Any])?["id"] as? Int, 1)
        let time = try XCTUnwrap((request["understudy"] as? [String: Any])?["time"] as? String)
        XCTAssertNotNil(time.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$"#, options: .regularExpression), time)
        XCTAssertEqual(matched.time.timeIntervalSince1970, registry.journal.interactions[0].startTime.timeIntervalSince1970, accuracy: 0.001)
    }

    func testFaultsRedirectsAndFailuresInTheJournalJSON() async throws {
        let registry = StubRegistry()
        registry.stub(.path("/reset"), named: "reset", response: .failure(.connectionReset))
        registry.stub(.path("/broken"), named: "broken") { _ in throw RenderError("no cats today") }
        registry.stub(.path("/hop"), named: "hop", response: .redirect(to: "/next", status: 302))
        registry.stub(.path("/next"), named: "next", response: .text("too late").delayed(by: .seconds(30)))
        let resetID = try await exchange(registry, "http://x.test/reset")
        try await exchange(registry, "http://x.test/broken")

        // In-process, the URL protocol follows the redirect and journals the hop with the entry it
        // came from; the client gives up while the next hop waits out its delay.
        let session = URLSession(configuration: .stubbed(by: registry))
        let task = session.dataTask(with: URL(string: "http://x.test/hop")!)
        task.resume()
        try await registry.journal.wait(for: .path("/next"), count: 1, timeout: .seconds(5))
        task.cancel()
        try await waitUntilSettled(registry)
        session.invalidateAndCancel()
        let hopID = try XCTUnwrap(registry.journal.interactions.first { $0.request.path == "/hop" }?.id)

        let requests = try decode(AdminJSON.RequestList.self, await send(AdminAPI(registry: registry, token: nil), "GET", "/__admin/requests"))
            .requests.reversed().map(\.entry)
        let list = (requests: requests, total: requests.count)
        XCTAssertEqual(list.requests.map(\.outcome), ["fault", "failed", "completed", "cancelled"])
        XCTAssertEqual(list.requests[0].id, resetID)
        XCTAssertEqual(list.requests[0].fault, "connection-reset")
        XCTAssertNil(list.requests[0].response)
        XCTAssertEqual(list.requests[1].error, "no cats today")
        XCTAssertEqual(list.requests[1].response?.status, 500)
        XCTAssertEqual(list.requests[2].response?.status, 302)
        XCTAssertNil(list.requests[2].redirectedFrom)
        XCTAssertEqual(list.requests[3].redirectedFrom, hopID)
        XCTAssertEqual(list.requests[3].stub, "next")
        XCTAssertEqual(list.requests.map(\.transport), ["server", "server", "inProcess", "inProcess"])
    }

    func testUnmatchedFilterLimitAndOffset() async throws {
        let registry = StubRegistry()
        registry.stub(.pathPrefix("/ok"), named: "ok", response: .text("ok"))
        for path in ["/ok/1", "/miss/1", "/ok/2", "/miss/2", "/ok/3", "/miss/3"] {
            try await exchange(registry, "http://x.test" + path)
        }
        let admin = AdminAPI(registry: registry, token: nil)
        func paths(_ target: String) async throws -> (paths: [String], total: Int) {
            let response = await send(admin, "GET", target)
            XCTAssertEqual(response.status, 200, target)
            let list = try decode(AdminJSON.RequestList.self, response)
            // Newest first, as WireMock lists them; `offset` skips the oldest.
            return (list.requests.map { URL(string: $0.entry.request.url)!.path }, list.total)
        }
        let unmatched = try await paths("/__admin/requests?unmatched=true")
        XCTAssertEqual(unmatched.paths, ["/miss/3", "/miss/2", "/miss/1"])
        XCTAssertEqual(unmatched.total, 3)
        let all = try await paths("/__admin/requests?unmatched=false")
        XCTAssertEqual(all.paths.count, 6)
        let page = try await paths("/__admin/requests?offset=1&limit=2")
        XCTAssertEqual(page.paths, ["/miss/3", "/ok/3"])
        XCTAssertEqual(page.total, 6)
        let unmatchedPage = try await paths("/__admin/requests?unmatched=1&offset=2&limit=5")
        XCTAssertEqual(unmatchedPage.paths, ["/miss/3"])
        let beyond = try await paths("/__admin/requests?offset=10")
        XCTAssertEqual(beyond.paths, [])
        XCTAssertEqual(beyond.total, 6)
        let none = try await paths("/__admin/requests?limit=0")
        XCTAssertEqual(none.paths, [])
    }

    func testRequestsRefusesBadQueryParameters() async throws {
        let admin = AdminAPI(registry: StubRegistry(), token: nil)
        let cases: [(String, String)] = [
            ("/__admin/requests?limit=abc",
             #"{"error":"'abc' is not a valid limit; expected a whole number of at least 0","field":"limit"}"#),
            ("/__admin/requests?limit=-1",
             #"{"error":"'-1' is not a valid limit; expected a whole number of at least 0","field":"limit"}"#),
            ("/__admin/requests?offset=1.5",
             #"{"error":"'1.5' is not a valid offset; expected a whole number of at least 0","field":"offset"}"#),
            ("/__admin/requests?unmatched=Maybe",
             #"{"error":"'Maybe' is not a valid value for unmatched; expected true or false","field":"unmatched"}"#),
            ("/__admin/requests?unmached=true",
             #"{"error":"unknown query parameter 'unmached'; expected limit, offset, unmatched or since","field":"unmached"}"#),
            ("/__admin/health?verbose=1",
             #"{"error":"unknown query parameter 'verbose'; /__admin/health takes no query parameters","field":"verbose"}"#),
        ]
        for (target, expected) in cases {
            let response = await send(admin, "GET", target)
            XCTAssertEqual(response.status, 400, target)
            XCTAssertEqual(try text(response), expected, target)
        }
    }

    func testDeleteRequestsClearsTheJournalOnly() async throws {
        let registry = StubRegistry()
        registry.stub(.any, named: "all", response: .text("x"))
        try await exchange(registry, "http://x.test/a")
        try await exchange(registry, "http://x.test/b")
        let response = await send(AdminAPI(registry: registry, token: nil), "DELETE", "/__admin/requests")
        XCTAssertEqual(response.status, 204)
        XCTAssertEqual(registry.journal.count, 0)
        XCTAssertEqual(registry.stubs.count, 1)
        XCTAssertEqual(registry.useCounts["all"], 2, "uses are not reset by clearing the journal")
    }

    func testCountRequestsMatchingAFileSchemaMatcher() async throws {
        let registry = StubRegistry()
        for url in ["http://img.example.com/a.webp", "http://img.example.com/b.webp", "http://img.example.com/c.png", "http://cdn.example.com/d.webp"] {
            try await exchange(registry, url)
        }
        let admin = AdminAPI(registry: registry, token: nil)
        let json = await send(admin, "POST", "/__admin/requests/count", body: #"{"request": {"host": "img.example.com", "extension": "webp"}}"#)
        XCTAssertEqual(json.status, 200)
        XCTAssertEqual(try text(json), #"{"count":2}"#)
        let yaml = await send(admin, "POST", "/__admin/requests/count", body: "request:\n  host: '*.example.com'\n", headers: ["Content-Type": "application/x-yaml"])
        XCTAssertEqual(try text(yaml), #"{"count":4}"#)
        let everything = await send(admin, "POST", "/__admin/requests/count", body: #"{"request": {}}"#)
        XCTAssertEqual(try text(everything), #"{"count":4}"#)
    }

    func testCountRequestsRefusesBadBodies() async throws {
        let admin = AdminAPI(registry: StubRegistry(), token: nil)
        let unknown = await send(admin, "POST", "/__admin/requests/count", body: #"{"request": {"url": "/a"}}"#)
        XCTAssertEqual(unknown.status, 400)
        let unknownError = try decode(AdminJSON.Error.self, unknown)
        XCTAssertEqual(unknownError.field, "request.url")
        XCTAssertEqual(unknownError.error, """
            request body:1: request.url: unknown key 'url'; expected one of method, scheme, host, path, pathPrefix, \
            pathPattern, extension, query, headers, cookies, basicAuth, accepts, body
            """)

        let missing = await send(admin, "POST", "/__admin/requests/count", body: #"{"match": {}}"#)
        XCTAssertEqual(missing.status, 400)
        XCTAssertEqual(try decode(AdminJSON.Error.self, missing).field, "match")

        let empty = await send(admin, "POST", "/__admin/requests/count")
        XCTAssertEqual(empty.status, 400)
        XCTAssertEqual(try text(empty), """
            {"error":"the request body is empty; expected a WireMock request pattern such as {\\"method\\": \\"GET\\", \\"url\\": \\"/a.png\\"} as JSON or YAML","field":"body"}
            """)

        let notJSON = await send(admin, "POST", "/__admin/requests/count", body: "{request")
        XCTAssertEqual(notJSON.status, 400)
        XCTAssertEqual(try decode(AdminJSON.Error.self, notJSON).field, "body")
    }

    func testNearMissesListEachUnmatchedRequestWithWhatDiffered() async throws {
        let registry = StubRegistry()
        registry.stub(.host("img.example.com") && .path("/cat.png"), named: "cat", response: .text("cat"))
        registry.stub(.host("img.example.com") && .path("/once.png"), named: "once", times: 1, response: .text("once"))
        try await exchange(registry, "http://img.example.com/dog.png")
        try await exchange(registry, "http://img.example.com/cat.png")
        try await exchange(registry, "http://img.example.com/once.png")
        try await exchange(registry, "http://img.example.com/once.png")

        let response = await send(AdminAPI(registry: registry, token: nil), "GET", "/__admin/near-misses")
        XCTAssertEqual(response.status, 200)
        let list = try decode(AdminJSON.NearMissList.self, response)
        XCTAssertEqual(list.unmatched.map(\.entry.id), [1, 4])
        let dog = list.unmatched[0]
        XCTAssertEqual(dog.entry.request.url, "http://img.example.com/dog.png")
        // Ranked by distance: /cat.png is nearer /dog.png than /once.png is.
        XCTAssertEqual(dog.nearMisses.map(\.stub), ["cat", "once"])
        XCTAssertEqual(dog.nearMisses[0], AdminJSON.NearMissSummary(
            stub: "cat", matchedParts: 1, totalParts: 2,
            differences: [.init(expected: "path is /cat.png", actual: "/dog.png")],
            description: #""cat" (1 of 2 parts matched): path is /cat.png (got /dog.png)"#
        ))
        let usedUp = try XCTUnwrap(list.unmatched[1].nearMisses.first)
        XCTAssertEqual(usedUp.stub, "once")
        XCTAssertEqual(usedUp.differences, [])
        XCTAssertEqual(usedUp.description, #""once" (2 of 2 parts matched): used up (times)"#)
    }

    func testHARExportAnswersTheJournalAsHAR() async throws {
        let registry = StubRegistry()
        registry.journal.keepsBodies = true
        registry.stub(.path("/a.json"), named: "a", response: .data(Data("{}".utf8), contentType: "application/json"))
        try await exchange(registry, "http://localhost/a.json")
        let response = await send(AdminAPI(registry: registry, token: nil), "GET", "/__admin/requests.har")
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.headers["Content-Type"], "application/json")
        let har = try JSONSerialization.jsonObject(with: response.body) as? [String: Any]
        let log = try XCTUnwrap(har?["log"] as? [String: Any])
        XCTAssertEqual(log["version"] as? String, "1.2")
        let entries = try XCTUnwrap(log["entries"] as? [[String: Any]])
        XCTAssertEqual(entries.count, 1)
        let content = (entries.first?["response"] as? [String: Any])?["content"] as? [String: Any]
        XCTAssertEqual(content?["text"] as? String, "{}")
        XCTAssertEqual((entries.first?["_understudy"] as? [String: Any])?["stub"] as? String, "a")
    }
}
