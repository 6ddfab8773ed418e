import Foundation
@testable import Understudy
import XCTest

/// Scenarios (one state machine for WireMock mappings, stub files and Swift), response
/// templating of WireMock mappings, and near misses ranked by distance.
final class ScenarioAndTemplateTests: XCTestCase {
    // MARK: - Scenarios

    func testASwiftScenarioWalksItsStatesAndResets() async throws {
        let stubs = StubRegistry()
        stubs.add(Stub(named: "empty", matching: .path("/cart"), response: .text("empty")).inScenario("cart", when: Scenario.startedState, then: "filled"))
        stubs.add(Stub(named: "full", matching: .path("/cart"), response: .text("cat.png")).inScenario("cart", when: "filled"))
        let first = try await stubs.answer("http://shop.test/cart").text
        let second = try await stubs.answer("http://shop.test/cart").text
        let third = try await stubs.answer("http://shop.test/cart").text
        XCTAssertEqual([first, second, third], ["empty", "cat.png", "cat.png"])
        XCTAssertEqual(stubs.scenarioStates, ["cart": "filled"])
        XCTAssertEqual(stubs.possibleStates(ofScenario: "cart"), ["Started", "filled"])
        stubs.resetScenarios()
        let again = try await stubs.answer("http://shop.test/cart").text
        XCTAssertEqual(again, "empty")
        XCTAssertTrue(stubs.setScenario("cart", to: "filled"))
        let set = try await stubs.answer("http://shop.test/cart").text
        XCTAssertEqual(set, "cat.png")
        XCTAssertFalse(stubs.setScenario("nope", to: "x"))
    }

    func testStubFilesAndMappingsShareOneScenario() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("scenario-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("wiremock/mappings"), withIntermediateDirectories: true)
        try """
            stubs:
              - name: login
                scenario: { name: session, when: Started, then: in }
                request: { path: /login }
                response: { status: 200, body: welcome }
            """.write(to: directory.appendingPathComponent("login.yaml"), atomically: true, encoding: .utf8)
        try #"{"scenarioName": "session", "requiredScenarioState": "in", "request": {"method": "GET", "url": "/me"}, "response": {"body": "ann"}}"#
            .write(to: directory.appendingPathComponent("wiremock/mappings/me.json"), atomically: true, encoding: .utf8)
        let stubs = StubRegistry()
        try stubs.load(from: directory.appendingPathComponent("login.yaml"))
        try stubs.load(wireMock: directory.appendingPathComponent("wiremock"))
        let before = await stubs.isUnmatched("http://app.test/me")
        XCTAssertTrue(before, "the mapping waits for the stub file's transition")
        let login = try await stubs.answer("http://app.test/login").text
        XCTAssertEqual(login, "welcome")
        let me = try await stubs.answer("http://app.test/me").text
        XCTAssertEqual(me, "ann")
        try stubs.reset()
        let afterReset = await stubs.isUnmatched("http://app.test/me")
        XCTAssertTrue(afterReset, "reset puts the scenario back in Started")
    }

    func testAStubFileScenarioWithoutANameIsAnError() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("bad-scenario-\(UUID().uuidString).yaml")
        defer { try? FileManager.default.removeItem(at: file) }
        try "stubs:\n  - scenario: { when: Started }\n    request: { path: /a }\n".write(to: file, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try StubRegistry().load(from: file)) { error in
            XCTAssertTrue("\(error)".contains("stubs[0].scenario: missing key 'name'"), "\(error)")
        }
    }

    // MARK: - Templating

    func testTemplatedBodyFileNameServesEachImageBytesByPath() async throws {
        let sandbox = try WireMockSandbox()
        let cat = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0xFF, 0x00, 0xC3, 0x28])
        let dog = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x80, 0x81, 0x00])
        try FileManager.default.createDirectory(at: sandbox.directory.appendingPathComponent("__files/images"), withIntermediateDirectories: true)
        try cat.write(to: sandbox.directory.appendingPathComponent("__files/images/cat.png"))
        try dog.write(to: sandbox.directory.appendingPathComponent("__files/images/dog.png"))
        try sandbox.write("mappings/photos.json", """
            {"request": {"method": "GET", "urlPathPattern": "/photos/[a-z]+"},
             "response": {"bodyFileName": "images/{{request.pathSegments.[1]}}.png", "transformers": ["response-template"],
                          "headers": {"Content-Type": "image/png", "X-Asked": "{{request.method}} {{request.path}} {{request.query.size}}"}}}
            """)
        let stubs = StubRegistry()
        try stubs.load(wireMock: sandbox.directory)
        let catAnswer = try await stubs.answer("http://img.test/photos/cat?size=2")
        XCTAssertEqual(catAnswer.body, cat, "the file's bytes, not text")
        XCTAssertEqual(catAnswer.headers["X-Asked"], "GET /photos/cat 2")
        let dogAnswer = try await stubs.answer("http://img.test/photos/dog")
        XCTAssertEqual(dogAnswer.body, dog)
        let missing = await stubs.respond(to: StubRequest(url: URL(string: "http://img.test/photos/cow")!))
        XCTAssertEqual(missing.response.status, 500)
        XCTAssertEqual(missing.failure?.message, "bodyFileName 'images/cow.png': file 'images/cow.png' does not exist; expected a file at wiremock/__files/images/cow.png")
    }

    func testTemplatesRenderTheRequestModelNowAndRandomValues() async throws {
        let stubs = try loaded("""
            {"request": {"urlPath": "/echo"}, "response": {"transformers": ["response-template"],
             "body": "{{request.url}}|{{{request.url}}}|{{request.headers.X-Id}}|{{request.host}}|{{request.scheme}}|{{now format='yyyy'}}|{{randomValue length=6 type='NUMERIC'}}|{{now format='epoch'}}"}}
            """)
        let answer = try await stubs.answer("http://img.test/echo?a=1&b=2", headers: ["X-Id": "7"])
        let parts = answer.text.split(separator: "|").map(String.init)
        XCTAssertEqual(Array(parts.prefix(5)), ["/echo?a&#x3D;1&amp;b&#x3D;2", "/echo?a=1&b=2", "7", "img.test", "http"])
        XCTAssertEqual(parts[5], String(Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: Date()).year!))
        XCTAssertEqual(parts[6].count, 6)
        XCTAssertTrue(parts[6].allSatisfy(\.isNumber))
        XCTAssertEqual(Double(parts[7])! / 1000, Date().timeIntervalSince1970, accuracy: 60)
    }

    func testGlobalTemplatingAndLiteralTextWithoutTheTransformer() async throws {
        let mapping = #"{"request": {"urlPath": "/p"}, "response": {"body": "{{request.path}}"}}"#
        let literal = try await loaded(mapping).answer("http://h/p").text
        XCTAssertEqual(literal, "{{request.path}}", "without the transformer WireMock serves the text as it is")
        let templated = try await loaded(mapping, everyResponse: true).answer("http://h/p").text
        XCTAssertEqual(templated, "/p")
    }

    func testAnUnknownHelperIsAnErrorAtLoadNamingIt() throws {
        let sandbox = try WireMockSandbox()
        try sandbox.write("mappings/a.json", #"{"request": {"urlPath": "/a"}, "response": {"transformers": ["response-template"], "body": "{{lookup request.query 'a'}} {{#each x}}{{/each}}"}}"#)
        XCTAssertEqual(sandbox.issues(), [
            "wiremock/mappings/a.json:1: response.body: unknown template helper 'lookup'; supported: \(ResponseTemplate.helpers)",
        ])
        try sandbox.write("mappings/a.json", #"{"request": {"urlPath": "/a"}, "response": {"transformers": ["response-template"], "body": "{{#switch x}}{{/switch}}"}}"#)
        XCTAssertEqual(sandbox.issues(), [
            "wiremock/mappings/a.json:1: response.body: unsupported template block '{{#switch}}'; supported: \(ResponseTemplate.helpers)",
        ])
    }

    // MARK: - Near misses

    func testTheDemoStubsNearestToAnUnmatchedPNGAreTheOtherPNGPaths() throws {
        let stubs = StubRegistry()
        try stubs.load(from: ImageDemoStubsTests.stubsDirectory)
        let misses = stubs.nearMisses(for: StubRequest(url: URL(string: "http://127.0.0.1:8080/nothing-here.png")!))
        let paths = misses.map { $0.mismatches.first { $0.expected.hasPrefix("path is ") }?.expected ?? $0.description }
        // Paths beside it in the same directory first, not the stubs whose only match is the method.
        XCTAssertEqual(paths, ["path is /truncated.png", "path is /gone.png", "path is /old.png"], "\(misses)")
        let onlyTheMethod = try XCTUnwrap(stubs.nearMisses(for: StubRequest(url: URL(string: "http://127.0.0.1:8080/nothing-here.png")!), limit: 100)
            .first { $0.stubName == "pieces-at-offsets" })
        XCTAssertGreaterThan(onlyTheMethod.distance, misses[2].distance)
    }

    func testTheTestLibrariesFailureTextListsTheNearestFirst() async throws {
        let stubs = StubRegistry()
        try stubs.load(from: ImageDemoStubsTests.stubsDirectory)
        let request = StubRequest(url: URL(string: "http://127.0.0.1:8080/nothing-here.png")!)
        let responder = StubResponder(registry: stubs, transport: .inProcess, upstream: nil)
        let answer = await responder.answer(request)
        responder.close(nil, request: request, startTime: Date(), answer: answer, report: DeliveryReport(headSent: true, bodyBytesSent: 0, ending: .completed, httpVersion: .http1_1))
        let message = try XCTUnwrap(FailureMessages.noUnmatchedRequests(stubs.journal))
        XCTAssertEqual(message, """
            1 unmatched request:
              GET http://127.0.0.1:8080/nothing-here.png
                1. "truncated" (0 of 1 parts matched): path is /truncated.png (got /nothing-here.png)
                2. "not-found" (0 of 1 parts matched): path is /gone.png (got /nothing-here.png)
                3. "redirect" (0 of 1 parts matched): path is /old.png (got /nothing-here.png)
            """)
    }

    // MARK: - Helpers

    /// A registry loaded from `mapping`, whose directory is removed at the test's teardown. (XCTest
    /// keeps a test case's instance, and its teardown blocks, to the end of the run: a sandbox
    /// held there would never be deinitialized, and its directory would stay behind.)
    private func loaded(_ mapping: String, everyResponse: Bool = false) throws -> StubRegistry {
        let sandbox = try WireMockSandbox()
        addTeardownBlock { try? FileManager.default.removeItem(at: sandbox.base) }
        try sandbox.write("mappings/a.json", mapping)
        let stubs = StubRegistry()
        try stubs.load(wireMock: sandbox.directory, templatesEveryResponse: everyResponse)
        return stubs
    }
}
