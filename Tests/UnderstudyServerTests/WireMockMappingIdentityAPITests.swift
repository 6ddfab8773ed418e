import Foundation
import Understudy
import UnderstudyServer
import XCTest

/// Over WireMock's admin API a mapping is its `id` (SPEC 22): two posted mappings of one name
/// are both kept, listed, answered, saved and read back by `mappings/reset`; `PUT`, `DELETE`
/// and an import with `IGNORE` act on the id alone. Metadata searches read JSONPath as bodies do.
final class WireMockMappingIdentityAPITests: XCTestCase {
    private var root: URL!

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("wiremock-identity-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("mappings"), withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: root)
    }

    func testTwoPostedMappingsOfOneNameBothAnswerBeforeAndAfterSaveThenReset() async throws {
        let registry = StubRegistry()
        try registry.load(wireMock: root)
        let admin = AdminAPI(registry: registry, token: nil)
        let first = await send(admin, "POST", "/__admin/mappings", body: #"{"name": "cat", "request": {"url": "/one"}, "response": {"body": "first"}}"#)
        let second = await send(admin, "POST", "/__admin/mappings", body: #"{"name": "cat", "request": {"url": "/two"}, "response": {"body": "second"}}"#)
        XCTAssertEqual([first.status, second.status], [201, 201])
        let ids = try [first, second].map { try XCTUnwrap(object($0)["id"] as? String) }
        XCTAssertNotEqual(ids[0], ids[1])
        XCTAssertEqual(try object(second)["name"] as? String, "cat", "the label is answered as posted")

        let listed = try object(await send(admin, "GET", "/__admin/mappings"))
        XCTAssertEqual((listed["meta"] as? [String: Any])?["total"] as? Int, 2)
        XCTAssertEqual(Set(((listed["mappings"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String }), Set(ids))
        XCTAssertEqual([body(registry, "/one"), body(registry, "/two")], ["first", "second"])

        let answer1 = await send(admin, "POST", "/__admin/mappings/save")
        XCTAssertEqual(answer1.status, 200)
        let files = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("mappings").path)
        XCTAssertEqual(files.count, 2, "\(files)")
        let answer2 = await send(admin, "POST", "/__admin/mappings/reset")
        XCTAssertEqual(answer2.status, 200)
        XCTAssertEqual(registry.stubs.count, 2)
        XCTAssertEqual([body(registry, "/one"), body(registry, "/two")], ["first", "second"], "both read back from their files")

        let updated = await send(admin, "PUT", "/__admin/mappings/\(ids[1])", body: #"{"name": "cat", "request": {"url": "/two"}, "response": {"body": "changed"}}"#)
        XCTAssertEqual(updated.status, 200)
        XCTAssertEqual([body(registry, "/one"), body(registry, "/two")], ["first", "changed"], "PUT replaces its id only")
        let answer3 = await send(admin, "DELETE", "/__admin/mappings/\(ids[0])")
        XCTAssertEqual(answer3.status, 200)
        XCTAssertEqual([body(registry, "/one"), body(registry, "/two")], [nil, "changed"], "DELETE removes its id only")
    }

    func testAnImportIgnoringDuplicatesKeepsANewIDOfAKnownName() async throws {
        let registry = StubRegistry()
        let admin = AdminAPI(registry: registry, token: nil)
        let posted = await send(admin, "POST", "/__admin/mappings", body: #"{"id": "11111111-1111-4111-8111-111111111111", "name": "cat", "request": {"url": "/one"}, "response": {"body": "first"}}"#)
        XCTAssertEqual(posted.status, 201)
        let imported = await send(admin, "POST", "/__admin/mappings/import", body: #"""
            {"mappings": [
              {"id": "11111111-1111-4111-8111-111111111111", "name": "cat", "request": {"url": "/one"}, "response": {"body": "ignored"}},
              {"id": "22222222-2222-4222-8222-222222222222", "name": "cat", "request": {"url": "/two"}, "response": {"body": "second"}}
            ], "importOptions": {"duplicatePolicy": "IGNORE"}}
            """#)
        XCTAssertEqual(imported.status, 200)
        XCTAssertEqual([body(registry, "/one"), body(registry, "/two")], ["first", "second"])
    }

    func testMetadataIsSearchedWithTheSameJSONPathFiltersAsBodies() async throws {
        // WireMock 2.35.1 answers {"total": 1} with /s for the same calls.
        let registry = StubRegistry()
        let admin = AdminAPI(registry: registry, token: nil)
        for (url, tag) in [("/s", "slow"), ("/f", "fast")] {
            let posted = await send(admin, "POST", "/__admin/mappings", body: #"{"request": {"url": "\#(url)"}, "metadata": {"tags": [{"name": "\#(tag)"}]}}"#)
            XCTAssertEqual(posted.status, 201)
        }
        let found = try object(await send(admin, "POST", "/__admin/mappings/find-by-metadata", body: #"{"matchesJsonPath": "$.tags[?(@.name == 'slow')]"}"#))
        XCTAssertEqual((found["meta"] as? [String: Any])?["total"] as? Int, 1)
        XCTAssertEqual(((found["mappings"] as? [[String: Any]]) ?? []).compactMap { ($0["request"] as? [String: Any])?["url"] as? String }, ["/s"])
        let bad = await send(admin, "POST", "/__admin/mappings/find-by-metadata", body: #"{"matchesJsonPath": "tags"}"#)
        XCTAssertEqual(bad.status, 400)
        XCTAssertTrue(String(decoding: bad.body, as: UTF8.self).contains("JSONPath 'tags': found 't' at position 1; expected '$' to start the path"))
    }

    // MARK: - Helpers

    private func body(_ registry: StubRegistry, _ path: String) -> String? {
        guard case .resolved(.response(let prepared)) = registry.resolveImmediately(StubRequest(url: URL(string: "http://127.0.0.1:8080" + path)!))
        else { return nil }
        return String(decoding: prepared.body, as: UTF8.self)
    }

    private func object(_ response: AdminResponse, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: response.body) as? [String: Any], file: file, line: line)
    }

    private func send(_ admin: AdminAPI, _ method: String, _ target: String, body: String = "") async -> AdminResponse {
        await admin.handle(AdminRequest(method: method, target: target, headers: [:], body: Data(body.utf8)))
    }
}
