import Foundation
import Understudy
import UnderstudyServer
import XCTest

/// What a request drew, in the admin API's journal.
final class AdminAPIDrawnTests: AdminAPITestCase {
    func testTheJournalEntriesSayWhatEachRequestDrew() async throws {
        let registry = StubRegistry(seed: 21)
        registry.stub(.path("/busy.png"), named: "busy", response: .data(Data(count: 5), contentType: "image/png").status(503, chance: 0.5))
        for _ in 0..<12 { try await exchange(registry, "http://img.example.com/busy.png") }
        let response = await send(AdminAPI(registry: registry, token: nil), "GET", "/__admin/requests")
        let entries = try decode(AdminJSON.RequestList.self, response).requests.map(\.entry)
        XCTAssertEqual(entries.count, 12)
        XCTAssertEqual(Set(entries.map { $0.response?.status }), [200, 503])
        for entry in entries {
            XCTAssertEqual(entry.drawn, entry.response?.status == 503 ? ["status"] : nil, "entry \(entry.id)")
        }
        let text = String(decoding: response.body, as: UTF8.self)
        XCTAssertTrue(text.contains(#""drawn":["status"]"#), text)
    }
}
