import Foundation
import Understudy
import UnderstudyServer
import UnderstudyURLProtocol
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The admin API driven directly: health, stubs, reset, routing and the token. The journal it
/// reports is filled by real exchanges, requests sent through a `StubServer`, never by entries
/// written by hand (see ``AdminAPITestCase``); the journal's endpoints are in
/// `AdminAPIJournalTests`.
final class AdminAPITests: AdminAPITestCase {
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
            connection-reset, empty-response, malformed-chunk, random-data-then-close, no-response, goaway, disconnect-after-request, disconnect-during-request-body, disconnect-during-response-body, reset-during-response-body, shutdown-input-at-end, shutdown-output-at-end, slow-close, timeout, limit-data
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
            + "connection-reset, empty-response, malformed-chunk, random-data-then-close, no-response, goaway, disconnect-after-request, disconnect-during-request-body, disconnect-during-response-body, reset-during-response-body, shutdown-input-at-end, shutdown-output-at-end, slow-close, timeout, limit-data"
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
                /__admin/ca.pem, /__admin/gates, /__admin/gates/{name}/release, /__admin/gates/{name}/close, /__admin/network, /__admin/mappings, /__admin/mappings/{id}, /__admin/mappings/reset, /__admin/mappings/save, /__admin/mappings/import, /__admin/mappings/find-by-metadata, /__admin/mappings/remove-by-metadata, /__admin/mappings/new, /__admin/mappings/edit, /__admin/mappings/remove, /__admin/requests/{id}, /__admin/requests/reset, /__admin/requests/find, /__admin/requests/remove, /__admin/requests/unmatched, /__admin/requests/unmatched/near-misses, /__admin/near-misses/request, /__admin/near-misses/request-pattern, /__admin/scenarios, /__admin/scenarios/reset, /__admin/scenarios/{name}/state, /__admin/settings"}
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
}
