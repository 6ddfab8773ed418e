import Foundation
import Understudy
import UnderstudyServer
import XCTest

/// WireMock's admin endpoints in process: the token, bad input naming its JSON path, nothing
/// half-applied, and one registry for mappings and stubs.
final class WireMockAdminAPITests: XCTestCase {
    func testEveryWireMockEndpointNeedsTheTokenAndChangesNothingWithoutIt() async throws {
        let registry = StubRegistry()
        let admin = AdminAPI(registry: registry, token: "s3cret")
        let calls: [(String, String)] = [
            ("GET", "/__admin/mappings"), ("POST", "/__admin/mappings"), ("DELETE", "/__admin/mappings"),
            ("POST", "/__admin/mappings/reset"), ("POST", "/__admin/mappings/import"), ("GET", "/__admin/requests"),
            ("POST", "/__admin/requests/find"), ("GET", "/__admin/scenarios"), ("POST", "/__admin/settings"),
        ]
        for (method, path) in calls {
            let response = await send(admin, method, path, body: #"{"request": {"url": "/a"}, "response": {"status": 200}}"#)
            XCTAssertEqual(response.status, 401, "\(method) \(path)")
        }
        XCTAssertTrue(registry.stubs.isEmpty)
        let allowed = await send(admin, "POST", "/__admin/mappings", body: #"{"request": {"url": "/a"}}"#, headers: ["Authorization": "Bearer s3cret"])
        XCTAssertEqual(allowed.status, 201)
        XCTAssertEqual(registry.stubs.count, 1)
    }

    func testAMalformedMappingIsA400NamingTheJSONPath() async throws {
        let registry = StubRegistry()
        let admin = AdminAPI(registry: registry, token: nil)
        let cases: [(String, String, String)] = [
            (#"{"request": {"url": "/a"}, "response": {"status": "200"}}"#, "response.status",
             "request body:1: response.status: expected an integer from 100 to 599, found string '200'"),
            (#"{"request": {"url": "/a"}, "response": {"transformers": ["response-template"], "body": "{{nope}}"}}"#, "response.body",
             "request body:1: response.body: unknown template helper 'nope'; supported: \(Self.helpers)"),
            (#"{"request": {"url": "/a"}, "requiredScenarioState": "x"}"#, "body",
             "request body:1: 'requiredScenarioState' or 'newScenarioState' without 'scenarioName'; expected a scenarioName for the scenario they belong to"),
            (#"{"request": {"url": "/a"}"#, "body", "request body:1:"),
            (#"{"request": {"url": "/a"}, "response": {"bodyFileName": "cat.png"}}"#, "response.bodyFileName",
             "request body:1: response.bodyFileName: bodyFileName needs a WireMock root holding __files/; start the server with --root-dir DIR (or --wiremock DIR)"),
        ]
        for (body, field, message) in cases {
            let response = await send(admin, "POST", "/__admin/mappings", body: body)
            XCTAssertEqual(response.status, 400, body)
            let error = try wireMockError(response)
            XCTAssertEqual(error.field, field, body)
            XCTAssertTrue(error.error.hasPrefix(message), "\(error.error) does not start with \(message)")
        }
        XCTAssertTrue(registry.stubs.isEmpty)
    }

    func testAnImportWithOneBadMappingAddsNone() async throws {
        let registry = StubRegistry()
        registry.stub(.path("/kept"), named: "kept", response: .text("kept"))
        let admin = AdminAPI(registry: registry, token: nil)
        let response = await send(admin, "POST", "/__admin/mappings/import", body: #"""
            {"mappings": [{"request": {"url": "/one"}}, {"request": {"urlPathPatern": "/two"}}],
             "importOptions": {"duplicatePolicy": "OVERWRITE", "deleteAllNotInImport": true}}
            """#)
        XCTAssertEqual(response.status, 400)
        XCTAssertEqual(try wireMockError(response).field, "mappings[1].request.urlPathPatern")
        XCTAssertEqual(registry.stubs.map(\.name), ["kept"], "nothing half-applied: no mapping added, none deleted")

        let good = await send(admin, "POST", "/__admin/mappings/import", body: #"""
            {"mappings": [{"name": "one", "request": {"url": "/one"}}, {"name": "two", "request": {"url": "/two"}}],
             "importOptions": {"deleteAllNotInImport": true}}
            """#)
        XCTAssertEqual(good.status, 200)
        XCTAssertEqual(Set(registry.stubs.map(\.name)), ["one", "two"])
    }

    func testMappingsAndStubsAreOneRegistry() async throws {
        let registry = StubRegistry()
        registry.stub(.path("/swift"), named: "swift-stub", response: .text("from Swift"))
        let admin = AdminAPI(registry: registry, token: nil)
        let created = await send(admin, "POST", "/__admin/mappings", body: #"{"name": "mapped", "request": {"method": "GET", "url": "/mapped"}, "response": {"body": "from a mapping"}}"#)
        XCTAssertEqual(created.status, 201)
        let answer1 = await send(admin, "GET", "/__admin/stubs")
        let stubs = try JSONSerialization.jsonObject(with: answer1.body) as? [String: Any]
        XCTAssertEqual(Set(((stubs?["stubs"] as? [[String: Any]]) ?? []).compactMap { $0["name"] as? String }), ["swift-stub", "mapped"])

        let answer2 = await send(admin, "GET", "/__admin/mappings")
        let list = try JSONSerialization.jsonObject(with: answer2.body) as? [String: Any]
        let mappings = (list?["mappings"] as? [[String: Any]]) ?? []
        XCTAssertEqual((list?["meta"] as? [String: Any])?["total"] as? Int, 2)
        let swift = try XCTUnwrap(mappings.first { $0["name"] as? String == "swift-stub" })
        XCTAssertEqual(((swift["metadata"] as? [String: Any])?["understudy"] as? [String: Any])?["matcher"] as? String, "path is /swift")
        XCTAssertEqual(swift["request"] as? [String: String], ["method": "ANY", "urlPath": "/swift"], "written in WireMock's form where it can be")
        let id = try XCTUnwrap(swift["id"] as? String)
        let answer3 = await send(admin, "GET", "/__admin/mappings/\(id)")
        XCTAssertEqual(answer3.status, 200)
        let answer4 = await send(admin, "DELETE", "/__admin/mappings/\(id)")
        XCTAssertEqual(answer4.status, 200)
        XCTAssertEqual(registry.stubs.map(\.name), ["mapped"])
        let missing = await send(admin, "DELETE", "/__admin/mappings/\(id)")
        XCTAssertEqual(missing.status, 404)
        XCTAssertEqual(try wireMockError(missing).error, "no mapping with id '\(id)'")
        let answer5 = await send(admin, "PUT", "/__admin/mappings/not-a-uuid", body: "{}")
        XCTAssertEqual(answer5.status, 404)
    }

    func testScenarioStateSetByTheAPIDecidesTheMatch() async throws {
        let registry = StubRegistry()
        registry.add(Stub(named: "first", matching: .path("/s"), response: .text("1")).inScenario("walk", when: "Started", then: "second"))
        registry.add(Stub(named: "second", matching: .path("/s"), response: .text("2")).inScenario("walk", when: "second"))
        let admin = AdminAPI(registry: registry, token: nil)
        let request = StubRequest(url: URL(string: "http://x.test/s")!)
        let answer6 = await send(admin, "PUT", "/__admin/scenarios/walk/state", body: #"{"state": "second"}"#)
        XCTAssertEqual(answer6.status, 200)
        XCTAssertEqual(registry.match(request)?.stubName, "second")
        let answer7 = await send(admin, "GET", "/__admin/scenarios")
        let listed = try JSONSerialization.jsonObject(with: answer7.body) as? [String: Any]
        let walk = try XCTUnwrap((listed?["scenarios"] as? [[String: Any]])?.first)
        XCTAssertEqual(walk["state"] as? String, "second")
        XCTAssertEqual(walk["possibleStates"] as? [String], ["Started", "second"])
        let answer8 = await send(admin, "POST", "/__admin/scenarios/reset")
        XCTAssertEqual(answer8.status, 200)
        XCTAssertEqual(registry.match(request)?.stubName, "first")
        let unknown = await send(admin, "PUT", "/__admin/scenarios/nope/state", body: #"{"state": "x"}"#)
        XCTAssertEqual(unknown.status, 404)
        XCTAssertEqual(try wireMockError(unknown).error, "no scenario named 'nope'; known: walk")
    }

    func testBadSettingsAndPatternsAreRefusedNamingTheField() async throws {
        let registry = StubRegistry()
        let admin = AdminAPI(registry: registry, token: nil)
        let delay = await send(admin, "POST", "/__admin/settings", body: #"{"fixedDelay": -5}"#)
        XCTAssertEqual(delay.status, 400)
        XCTAssertEqual(try wireMockError(delay).field, "fixedDelay")
        let other = await send(admin, "POST", "/__admin/settings", body: #"{"proxyPassThrough": false}"#)
        XCTAssertEqual(try wireMockError(other).error, "proxyPassThrough: unsupported setting; supported: fixedDelay, fault, chance")
        XCTAssertEqual(registry.globalDelay, .zero)
        let pattern = await send(admin, "POST", "/__admin/requests/count", body: #"{"method": "GET", "multipartPatterns": []}"#)
        XCTAssertEqual(pattern.status, 400)
        XCTAssertEqual(try JSONDecoder().decode(AdminJSON.Error.self, from: pattern.body).field, "multipartPatterns")
        let answer9 = await send(admin, "POST", "/__admin/settings", body: #"{"fixedDelay": 250}"#)
        XCTAssertEqual(answer9.status, 200)
        XCTAssertEqual(registry.globalDelay, .milliseconds(250))
        let answer10 = await send(admin, "GET", "/__admin/settings")
        XCTAssertEqual(String(decoding: answer10.body, as: UTF8.self), #"{"settings":{"fixedDelay":250}}"# + "\n")
    }

    /// WireMock's error body: `{"errors": [{"code": 10, "source": {"pointer": "/request/url"}, "title", "detail"}]}`,
    /// read as Understudy's (`field` the pointer as a path, `error` the detail).
    private func wireMockError(_ response: AdminResponse, file: StaticString = #filePath, line: UInt = #line) throws -> AdminJSON.Error {
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: response.body) as? [String: Any], file: file, line: line)
        XCTAssertEqual(object.keys.sorted(), ["errors"], "WireMock's Java client reads nothing else", file: file, line: line)
        let error = try XCTUnwrap((object["errors"] as? [[String: Any]])?.first, file: file, line: line)
        XCTAssertEqual(error["code"] as? Int, 10, file: file, line: line)
        let detail = try XCTUnwrap(error["detail"] as? String, file: file, line: line)
        XCTAssertEqual(error["title"] as? String, detail.split(separator: "\n").first.map(String.init), file: file, line: line)
        var field = (error["source"] as? [String: Any])?["pointer"] as? String ?? ""
        field = String(field.dropFirst()).split(separator: "/").map { Int($0) != nil ? "[\($0)]" : "." + $0 }.joined()
        if field.hasPrefix(".") { field.removeFirst() }
        return AdminJSON.Error(error: detail, field: field.isEmpty ? nil : field)
    }

    static let helpers = "request.url, request.path, request.pathSegments.[n], request.path.[n], request.path.<parameter> (with urlPathTemplate), request.query.<name>, request.headers.<name>, request.method, request.host, request.port, request.scheme, request.baseUrl, request.body, now (format, offset, timezone), randomValue (length, type, uppercase)"

    private func send(_ admin: AdminAPI, _ method: String, _ target: String, body: String = "", headers: HeaderFields = [:]) async -> AdminResponse {
        await admin.handle(AdminRequest(method: method, target: target, headers: headers, body: Data(body.utf8)))
    }
}
