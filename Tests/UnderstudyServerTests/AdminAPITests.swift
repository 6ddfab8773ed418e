import Foundation
import Understudy
import UnderstudyServer
import UnderstudyURLProtocol
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The admin API driven directly: every endpoint and every refusal. The journal it reports is
/// filled by real exchanges, requests sent through a `StubServer` (and in-process for a
/// redirect hop), never by entries written by hand.
final class AdminAPITests: XCTestCase {
    // MARK: - Health

    func testHealthReportsStubsAndTheJournal() async throws {
        let registry = StubRegistry(journalLimit: 2)
        registry.stub(.path("/a.png"), named: "a", response: .text("a"))
        for _ in 0..<3 { try await exchange(registry, "http://img.example.com/a.png") }
        let response = await send(AdminAPI(registry: registry, token: nil), "GET", "/__admin/health")
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.headers["Content-Type"], "application/json")
        XCTAssertEqual(response.headers["Content-Length"], String(response.body.count))
        XCTAssertEqual(try text(response), #"{"inFlight":0,"journal":{"count":2,"dropped":1,"limit":2},"status":"ok","stubs":1}"#)

        let unlimited = await send(AdminAPI(registry: StubRegistry(), token: nil), "GET", "/__admin/health")
        XCTAssertEqual(try text(unlimited), #"{"inFlight":0,"journal":{"count":0,"dropped":0,"limit":null},"status":"ok","stubs":0}"#)
    }

    func testHeadIsAnsweredLikeGet() async throws {
        let response = await send(AdminAPI(registry: StubRegistry(), token: nil), "HEAD", "/__admin/health")
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.headers["Content-Type"], "application/json")
    }

    // MARK: - Stubs

    func testListStubsInPrecedenceOrderWithUses() async throws {
        let registry = StubRegistry()
        registry.stub(.host("img.example.com") && .pathExtension("webp"), named: "webp", response: .text("w"))
        registry.stub(.path("/a.png"), named: "a", priority: 5, times: 3, response: .text("a"))
        try await exchange(registry, "http://img.example.com/a.png")
        let response = await send(AdminAPI(registry: registry, token: nil), "GET", "/__admin/stubs")
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(try text(response), """
            {"stubs":[{"matcher":"path is /a.png","name":"a","priority":5,"times":3,"uses":1},\
            {"matcher":"host is img.example.com and extension is webp","name":"webp","priority":0,"times":null,"uses":0}]}
            """)
    }

    func testShowOneStubAndRefuseAnUnknownName() async throws {
        let registry = StubRegistry()
        registry.stub(.path("/a.png"), named: "cat/one", response: .text("a"))
        let admin = AdminAPI(registry: registry, token: nil)
        let found = await send(admin, "GET", "/__admin/stubs/cat%2Fone")
        XCTAssertEqual(found.status, 200)
        XCTAssertEqual(try text(found), #"{"matcher":"path is /a.png","name":"cat/one","priority":0,"times":null,"uses":0}"#)
        let missing = await send(admin, "GET", "/__admin/stubs/dog")
        XCTAssertEqual(missing.status, 404)
        XCTAssertEqual(try text(missing), #"{"error":"no stub named 'dog'","field":"name"}"#)
    }

    func testPostOneStubAsJSON() async throws {
        let registry = StubRegistry()
        let admin = AdminAPI(registry: registry, token: nil)
        let response = await send(admin, "POST", "/__admin/stubs", body: """
            {"name": "teapot", "priority": 2, "times": 1, "request": {"path": "/tea"}, "response": {"status": 418}}
            """)
        XCTAssertEqual(response.status, 201)
        XCTAssertEqual(try text(response), #"{"added":["teapot"]}"#)
        XCTAssertEqual(registry.stubs.map(\.name), ["teapot"])
        XCTAssertEqual(registry.stubs.first?.times, 1)
        XCTAssertEqual(registry.stubs.first?.priority, 2)
        try await exchange(registry, "http://x.test/tea")
        XCTAssertEqual(registry.journal.interactions.last?.status, 418)
        XCTAssertEqual(registry.journal.interactions.last?.stubName, "teapot")
    }

    func testPostAStubListAsYAMLNamesUnnamedStubsUniquely() async throws {
        let registry = StubRegistry()
        let admin = AdminAPI(registry: registry, token: nil)
        let yaml = """
            stubs:
              - request: { path: /one }
                response: { body: one }
              - name: two
                request: { path: /two }
                response: { json: { n: 2 } }
              - request: { path: /three }
                response: { status: 204 }
            """
        let first = await send(admin, "POST", "/__admin/stubs", body: yaml, headers: ["Content-Type": "application/yaml"])
        XCTAssertEqual(first.status, 201)
        XCTAssertEqual(try text(first), #"{"added":["posted-1","two","posted-2"]}"#)
        let again = await send(admin, "POST", "/__admin/stubs", body: #"{"request": {"path": "/four"}, "response": {"body": "4"}}"#)
        XCTAssertEqual(try text(again), #"{"added":["posted-3"]}"#)
        XCTAssertEqual(Set(registry.stubs.map(\.name)), ["posted-1", "two", "posted-2", "posted-3"])
        try await exchange(registry, "http://x.test/two")
        XCTAssertEqual(registry.journal.interactions.last?.stubName, "two")
        XCTAssertEqual(registry.journal.interactions.last?.status, 200)
    }

    func testPostStubsRefusesBadBodiesNamingTheField() async throws {
        let admin = AdminAPI(registry: StubRegistry(), token: nil)

        let unknownKey = await send(admin, "POST", "/__admin/stubs", body: """
            {"stubs": [{"request": {"path": "/a"}, "respnse": {"status": 200}}]}
            """)
        XCTAssertEqual(unknownKey.status, 400)
        XCTAssertEqual(try text(unknownKey), """
            {"error":"request body:1: stubs[0].respnse: unknown key 'respnse'; expected one of name, priority, times, scenario, request, response, responses",\
            "field":"stubs[0].respnse",\
            "issues":["request body:1: stubs[0].respnse: unknown key 'respnse'; expected one of name, priority, times, scenario, request, response, responses"]}
            """)

        let badFault = await send(admin, "POST", "/__admin/stubs", body: """
            name: boom
            response:
              fault: explode
            """, headers: ["Content-Type": "text/yaml"])
        XCTAssertEqual(badFault.status, 400)
        let badFaultError = try decode(AdminJSON.Error.self, badFault)
        XCTAssertEqual(badFaultError.field, "response.fault")
        XCTAssertEqual(badFaultError.error, """
            request body:3: response.fault: unknown fault 'explode'; expected one of \
            connection-reset, empty-response, malformed-chunk, random-data-then-close, no-response, goaway
            """)

        let notJSON = await send(admin, "POST", "/__admin/stubs", body: "stubs: [")
        XCTAssertEqual(notJSON.status, 400)
        let notJSONError = try decode(AdminJSON.Error.self, notJSON)
        XCTAssertEqual(notJSONError.field, "body")
        XCTAssertTrue(notJSONError.error.hasPrefix("request body:1: invalid JSON: "), notJSONError.error)

        let empty = await send(admin, "POST", "/__admin/stubs", body: "")
        XCTAssertEqual(empty.status, 400)
        XCTAssertEqual(try text(empty), """
            {"error":"the request body is empty; expected a stub or {\\"stubs\\": [...]} as JSON or YAML","field":"body"}
            """)

        let notUTF8 = await send(admin, "POST", "/__admin/stubs", data: Data([0xFF, 0xFE, 0x00]))
        XCTAssertEqual(notUTF8.status, 400)
        XCTAssertEqual(try text(notUTF8), """
            {"error":"the request body is not UTF-8 text; expected a stub or {\\"stubs\\": [...]} as JSON or YAML","field":"body"}
            """)

        let fileReference = await send(admin, "POST", "/__admin/stubs", body: #"{"response": {"file": "cat.png"}}"#)
        XCTAssertEqual(fileReference.status, 400)
        XCTAssertEqual(try decode(AdminJSON.Error.self, fileReference), AdminJSON.Error(
            error: "request body:1: response.file: file 'cat.png' cannot be used here; expected stubs loaded from a stub directory",
            field: "response.file",
            issues: ["request body:1: response.file: file 'cat.png' cannot be used here; expected stubs loaded from a stub directory"]
        ))
        XCTAssertEqual(admin.registry.stubs.count, 0, "nothing is added from a refused body")
    }

    func testPostedFileReferencesResolveInTheStubDirectory() async throws {
        let directory = try temporaryDirectory()
        try Data("hello file".utf8).write(to: directory.appendingPathComponent("greeting.txt"))
        let registry = StubRegistry()
        let admin = AdminAPI(registry: registry, token: nil, stubDirectory: directory)
        let response = await send(admin, "POST", "/__admin/stubs", body: """
            {"name": "greeting", "request": {"path": "/hi"}, "response": {"file": "greeting.txt"}}
            """)
        XCTAssertEqual(response.status, 201)
        try await exchange(registry, "http://x.test/hi")
        XCTAssertEqual(registry.journal.interactions.last?.bodyBytesSent, 10)
    }

    func testDeleteOneStubAndAllStubs() async throws {
        let registry = StubRegistry()
        registry.stub(.path("/a"), named: "a", response: .text("a"))
        registry.stub(.path("/b"), named: "b", response: .text("b"))
        registry.stub(.path("/c"), named: "c", response: .text("c"))
        try await exchange(registry, "http://x.test/a")
        let admin = AdminAPI(registry: registry, token: nil)

        let deleted = await send(admin, "DELETE", "/__admin/stubs/b")
        XCTAssertEqual(deleted.status, 204)
        XCTAssertTrue(deleted.body.isEmpty)
        XCTAssertNil(deleted.headers["Content-Length"], "RFC 9110: no Content-Length on 204")
        XCTAssertEqual(Set(registry.stubs.map(\.name)), ["a", "c"])

        let missing = await send(admin, "DELETE", "/__admin/stubs/b")
        XCTAssertEqual(missing.status, 404)
        XCTAssertEqual(try text(missing), #"{"error":"no stub named 'b'","field":"name"}"#)

        let all = await send(admin, "DELETE", "/__admin/stubs")
        XCTAssertEqual(all.status, 204)
        XCTAssertTrue(registry.stubs.isEmpty)
        XCTAssertEqual(registry.journal.count, 1, "deleting stubs keeps the journal")
    }

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
        XCTAssertTrue(raw.contains(#""understudy":{"durationMs":"#), raw)
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
            "durationMs", "httpVersion", "id", "outcome", "request", "response", "stub", "time", "transport",
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
            pathPattern, extension, query, headers, accepts, body
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

    // MARK: - Reset

    func testResetRereadsTheStubFilesRestartsTimesAndClearsTheJournal() async throws {
        let directory = try temporaryDirectory()
        let file = directory.appendingPathComponent("cats.yaml")
        try """
            stubs:
              - name: cat
                times: 1
                request: { path: /cat }
                response: { body: meow }
            """.write(to: file, atomically: true, encoding: .utf8)
        let registry = StubRegistry()
        try registry.load(from: directory)
        registry.stub(.path("/code"), named: "code", response: .text("added in code"))
        let admin = AdminAPI(registry: registry, token: nil)
        _ = await send(admin, "POST", "/__admin/stubs", body: #"{"name": "posted", "request": {"path": "/posted"}, "response": {"status": 201}}"#)
        try await exchange(registry, "http://x.test/cat")
        try await exchange(registry, "http://x.test/cat")
        XCTAssertEqual(registry.journal.unmatched.count, 1, "times: 1 used up")

        try """
            stubs:
              - name: cat
                times: 1
                request: { path: /cat }
                response: { body: purr }
              - name: kitten
                request: { path: /kitten }
                response: { status: 204 }
            """.write(to: file, atomically: true, encoding: .utf8)
        let response = await send(admin, "POST", "/__admin/reset")
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(try text(response), #"{"stubs":2}"#)
        XCTAssertEqual(Set(registry.stubs.map(\.name)), ["cat", "kitten"])
        XCTAssertEqual(registry.journal.count, 0)
        try await exchange(registry, "http://x.test/cat")
        XCTAssertEqual(registry.journal.interactions.last?.stubName, "cat", "times restarted")
        XCTAssertEqual(registry.journal.interactions.last?.bodyBytesSent, 4)
    }

    func testResetWithABrokenFileChangesNothing() async throws {
        let directory = try temporaryDirectory()
        let file = directory.appendingPathComponent("cats.yaml")
        try "stubs:\n  - name: cat\n    response: { body: meow }\n".write(to: file, atomically: true, encoding: .utf8)
        let registry = StubRegistry()
        try registry.load(from: directory)
        try await exchange(registry, "http://x.test/cat")
        try "stubs:\n  - name: cat\n    response: { fault: explode }\n".write(to: file, atomically: true, encoding: .utf8)

        let response = await send(AdminAPI(registry: registry, token: nil), "POST", "/__admin/reset")
        XCTAssertEqual(response.status, 500)
        let error = try decode(AdminJSON.Error.self, response)
        let issue = "\(directory.relativePath)/cats.yaml:3: stubs[0].response.fault: unknown fault 'explode'; expected one of "
            + "connection-reset, empty-response, malformed-chunk, random-data-then-close, no-response, goaway"
        XCTAssertEqual(error, AdminJSON.Error(
            error: "cannot reset, nothing changed: the stub files have issues:\n" + issue, field: nil, issues: [issue]
        ))
        XCTAssertEqual(registry.journal.count, 1)
        XCTAssertEqual(registry.stubs.map(\.name), ["cat"])
    }

    // MARK: - Routing and the token

    func testWrongMethodIs405WithAllow() async throws {
        let admin = AdminAPI(registry: StubRegistry(), token: nil)
        let cases: [(String, String, String, String)] = [
            ("PUT", "/__admin/stubs", "GET, POST, DELETE", "GET, POST or DELETE"),
            ("POST", "/__admin/health", "GET", "GET"),
            ("GET", "/__admin/reset", "POST", "POST"),
            ("POST", "/__admin/stubs/cat", "GET, DELETE", "GET or DELETE"),
            ("GET", "/__admin/requests/count", "POST", "POST"),
        ]
        for (method, path, allow, expected) in cases {
            let response = await send(admin, method, path)
            XCTAssertEqual(response.status, 405, "\(method) \(path)")
            XCTAssertEqual(response.headers["Allow"], allow)
            XCTAssertEqual(try text(response), """
                {"error":"method \(method) is not allowed on \(path); expected \(expected)","field":"method"}
                """)
        }
    }

    func testUnknownAdminPathIs404() async throws {
        let admin = AdminAPI(registry: StubRegistry(), token: nil)
        // `/__admin/` and `/__admin` are the dashboard (DashboardAPITests).
        for path in ["/__admin/nope", "/__admin/requests/count/extra"] {
            let response = await send(admin, "GET", path)
            XCTAssertEqual(response.status, 404, path)
            XCTAssertEqual(try text(response), """
                {"error":"no admin endpoint \(path); expected one of /__admin/health, /__admin/stubs, /__admin/stubs/{name}, \
                /__admin/requests, /__admin/requests/count, /__admin/requests.har, /__admin/near-misses, /__admin/reset, \
                /__admin/ca.pem, /__admin/gates, /__admin/gates/{name}/release, /__admin/gates/{name}/close, /__admin/network, /__admin/mappings, /__admin/mappings/{id}, /__admin/mappings/reset, /__admin/mappings/save, /__admin/mappings/import, /__admin/mappings/find-by-metadata, /__admin/mappings/remove-by-metadata, /__admin/mappings/new, /__admin/mappings/edit, /__admin/mappings/remove, /__admin/requests/{id}, /__admin/requests/reset, /__admin/requests/find, /__admin/requests/unmatched, /__admin/requests/unmatched/near-misses, /__admin/near-misses/request, /__admin/near-misses/request-pattern, /__admin/scenarios, /__admin/scenarios/reset, /__admin/scenarios/{name}/state, /__admin/settings"}
                """)
        }
        XCTAssertTrue(AdminAPI.isAdminPath("/__admin/health"))
        XCTAssertTrue(AdminAPI.isAdminPath("/__admin"))
        XCTAssertFalse(AdminAPI.isAdminPath("/__administrator"))
        XCTAssertFalse(AdminAPI.isAdminPath("/a/__admin/health"))
    }

    func testTrailingSlashIsAccepted() async throws {
        let response = await send(AdminAPI(registry: StubRegistry(), token: nil), "GET", "/__admin/stubs/")
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(try text(response), #"{"stubs":[]}"#)
    }

    func testTokenIsRequiredOnEveryEndpoint() async throws {
        let registry = StubRegistry()
        registry.stub(.any, named: "keep", response: .text("x"))
        let admin = AdminAPI(registry: registry, token: "s3cret")
        for (method, path) in [("GET", "/__admin/health"), ("DELETE", "/__admin/stubs"), ("POST", "/__admin/reset"), ("GET", "/__admin/nope")] {
            let missing = await send(admin, method, path)
            XCTAssertEqual(missing.status, 401, path)
            XCTAssertEqual(missing.headers["WWW-Authenticate"], #"Bearer realm="understudy admin""#)
            XCTAssertEqual(try text(missing), """
                {"error":"missing admin token; expected the header 'Authorization: Bearer <token>'","field":"Authorization"}
                """)
        }
        for wrong in ["Bearer s3cre", "Bearer s3cret2", "Basic s3cret", "s3cret", "Bearer"] {
            let response = await send(admin, "GET", "/__admin/health", headers: ["Authorization": wrong])
            XCTAssertEqual(response.status, 401, wrong)
            XCTAssertEqual(try text(response), """
                {"error":"wrong admin token; expected the header 'Authorization: Bearer <token>' with the server's --admin-token",\
                "field":"Authorization"}
                """)
        }
        XCTAssertEqual(registry.stubs.count, 1, "refused requests change nothing")

        let allowed = await send(admin, "GET", "/__admin/health", headers: ["authorization": "bearer s3cret"])
        XCTAssertEqual(allowed.status, 200)
        let deleted = await send(admin, "DELETE", "/__admin/stubs", headers: ["Authorization": "Bearer s3cret"])
        XCTAssertEqual(deleted.status, 204)
        XCTAssertEqual(registry.stubs.count, 0)
    }

    func testAdminRequestsNeverEnterTheJournal() async throws {
        let registry = StubRegistry()
        let admin = AdminAPI(registry: registry, token: nil)
        _ = await send(admin, "GET", "/__admin/health")
        _ = await send(admin, "POST", "/__admin/stubs", body: #"{"name": "a", "response": {"status": 200}}"#)
        _ = await send(admin, "GET", "/__admin/requests")
        _ = await send(admin, "POST", "/__admin/requests/count", body: #"{"request": {}}"#)
        _ = await send(admin, "GET", "/__admin/nope")
        XCTAssertEqual(registry.journal.count, 0)
        XCTAssertEqual(registry.useCounts["a"], 0)
    }

    func testRequestTargetParsing() {
        let request = AdminRequest(method: "get", target: "/__admin/stubs/a%20b?limit=2&unmatched")
        XCTAssertEqual(request.method, "GET")
        XCTAssertEqual(request.path, "/__admin/stubs/a b")
        XCTAssertEqual(request.query, ["limit": "2", "unmatched": ""])
        let absolute = AdminRequest(method: "GET", target: "http://127.0.0.1:8080/__admin/health?x=%2F")
        XCTAssertEqual(absolute.path, "/__admin/health")
        XCTAssertEqual(absolute.query, ["x": "/"])
    }

    // MARK: - Helpers

    private func send(
        _ admin: AdminAPI, _ method: String, _ target: String, body: String? = nil, data: Data? = nil, headers: HeaderFields = [:]
    ) async -> AdminResponse {
        await admin.handle(AdminRequest(method: method, target: target, headers: headers, body: data ?? Data((body ?? "").utf8)))
    }

    /// The body as text, checking the JSON framing every body has.
    private func text(_ response: AdminResponse, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        XCTAssertEqual(response.headers["Content-Type"], "application/json", file: file, line: line)
        XCTAssertEqual(response.headers["Content-Length"], String(response.body.count), file: file, line: line)
        let text = String(decoding: response.body, as: UTF8.self)
        XCTAssertTrue(text.hasSuffix("\n"), "a body ends with a newline", file: file, line: line)
        return String(text.dropLast())
    }

    private func decode<T: Decodable>(_ type: T.Type, _ response: AdminResponse) throws -> T {
        try JSONDecoder().decode(type, from: response.body)
    }

    // MARK: - Real exchanges

    /// A server for each registry a test sends requests to, started on first use.
    private var servers: [ObjectIdentifier: StubServer] = [:]

    /// Sends `method url` through a `StubServer` serving `registry` (started on first use and
    /// stopped when the test ends) in absolute form, as a client of a forward proxy does, so the
    /// journal records `url` itself; waits until the server has journaled it completely.
    /// - Returns: the journal entry's id.
    @discardableResult
    private func exchange(
        _ registry: StubRegistry, _ url: String, method: String = "GET", headers: [(String, String)] = [], body: Data? = nil,
        file: StaticString = #filePath, line: UInt = #line
    ) async throws -> Int {
        let server: StubServer
        if let running = servers[ObjectIdentifier(registry)] {
            server = running
        } else {
            server = try await StubServer.start(serving: registry)
            servers[ObjectIdentifier(registry)] = server
            addTeardownBlock { try await server.stop() }
        }
        let host = try XCTUnwrap(URL(string: url)?.host, file: file, line: line)
        let lastID = registry.journal.interactions.last?.id ?? 0
        var head = "\(method) \(url) HTTP/1.1\r\nHost: \(host)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let body { head += "Content-Length: \(body.count)\r\n" }
        let socket = try RawSocket(port: server.port)
        socket.send(Array((head + "\r\n").utf8) + Array(body ?? Data()))
        let answer = socket.read(stoppingWhen: { RawResponse.parse($0).count == 1 })
        XCTAssertNotEqual(answer.ending, .timedOut, "\(method) \(url) was answered, or the connection ended: \(answer)", file: file, line: line)
        try await waitUntilSettled(registry, file: file, line: line)
        let entry = try XCTUnwrap(registry.journal.interactions.last, "\(method) \(url) was journaled", file: file, line: line)
        XCTAssertGreaterThan(entry.id, lastID, "\(method) \(url) was journaled", file: file, line: line)
        return entry.id
    }

    /// Waits (at most 5 s) until no journal entry is in flight: a server may finish an entry
    /// just after its client has the answer.
    private func waitUntilSettled(_ registry: StubRegistry, file: StaticString = #filePath, line: UInt = #line) async throws {
        let deadline = Date().addingTimeInterval(5)
        while registry.journal.interactions.contains(where: { $0.outcome == .inFlight }) {
            guard Date() < deadline else {
                return XCTFail("journal entries still in flight after 5 s: \(registry.journal.interactions)", file: file, line: line)
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    private func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("admin-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }
}

