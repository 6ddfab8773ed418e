import Foundation
import Understudy
import UnderstudyServer
import XCTest

/// WireMock's `DELETE /__admin/requests/{id}` and `POST /__admin/requests/remove` in process:
/// what they answer and what `GET /__admin/requests` lists afterwards.
final class WireMockJournalRemovalAPITests: XCTestCase {
    func testOneEntryRemovedByItsIDAndOthersByAPattern() async throws {
        let registry = StubRegistry()
        for path in ["/j/a", "/j/b", "/j/b", "/j/c"] {
            let id = registry.journal.open(StubRequest(url: URL(string: "http://127.0.0.1:8080" + path)!), transport: .server, httpVersion: .http1_1)
            registry.journal.complete(id, with: InteractionResult(stubName: nil, status: 404, outcome: .unmatched))
        }
        let admin = AdminAPI(registry: registry, token: nil)
        let listed = try requests(await send(admin, "GET", "/__admin/requests"))
        XCTAssertEqual(listed.map(\.url), ["/j/c", "/j/b", "/j/b", "/j/a"])

        let deleted = await send(admin, "DELETE", "/__admin/requests/\(listed[0].id)")
        XCTAssertEqual(deleted.status, 200)
        XCTAssertEqual(String(decoding: deleted.body, as: UTF8.self), "{}\n")
        let again = await send(admin, "DELETE", "/__admin/requests/\(listed[0].id)")
        XCTAssertEqual(again.status, 200, "WireMock answers 200 for an id no longer kept")
        let answer1 = await send(admin, "GET", "/__admin/requests/\(listed[0].id)")
        XCTAssertEqual(answer1.status, 404)
        let answer2 = await send(admin, "GET", "/__admin/requests")
        XCTAssertEqual(try requests(answer2).map(\.url), ["/j/b", "/j/b", "/j/a"])

        let removed = await send(admin, "POST", "/__admin/requests/remove", body: #"{"method": "GET", "urlPath": "/j/b"}"#)
        XCTAssertEqual(removed.status, 200)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: removed.body) as? [String: Any])
        let events = try XCTUnwrap(object["serveEvents"] as? [[String: Any]], "WireMock's FindServeEventsResult: \(object.keys)")
        XCTAssertEqual(events.compactMap { ($0["request"] as? [String: Any])?["url"] as? String }, ["/j/b", "/j/b"])
        XCTAssertEqual(Set(events.compactMap { $0["id"] as? String }), Set([listed[1].id, listed[2].id]))
        let answer3 = await send(admin, "GET", "/__admin/requests")
        XCTAssertEqual(try requests(answer3).map(\.url), ["/j/a"])

        let bad = await send(admin, "POST", "/__admin/requests/remove", body: #"{"urlPathPatern": "/j"}"#)
        XCTAssertEqual(bad.status, 400)
        let answer4 = await send(admin, "GET", "/__admin/requests")
        XCTAssertEqual(try requests(answer4).map(\.url), ["/j/a"], "a bad pattern removes nothing")
    }

    // MARK: - Helpers

    private func requests(_ response: AdminResponse, file: StaticString = #filePath, line: UInt = #line) throws -> [(id: String, url: String)] {
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: response.body) as? [String: Any], file: file, line: line)
        return ((object["requests"] as? [[String: Any]]) ?? []).map { event in
            (event["id"] as? String ?? "", (event["request"] as? [String: Any])?["url"] as? String ?? "")
        }
    }

    private func send(_ admin: AdminAPI, _ method: String, _ target: String, body: String = "") async -> AdminResponse {
        await admin.handle(AdminRequest(method: method, target: target, headers: [:], body: Data(body.utf8)))
    }
}
