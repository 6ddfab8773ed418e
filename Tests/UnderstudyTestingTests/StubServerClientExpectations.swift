import Foundation
import Testing
import Understudy
import UnderstudyClient
import UnderstudyServer
import UnderstudyTesting
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The same journal with Swift Testing's expectations.
@Suite struct StubServerClientExpectations {
    @Test func expectRequestedReadsTheServersJournal() async throws {
        // A server in this process here; `StubServerClientTests` drive an `understudy serve` process.
        let server = try await StubServer.start(serving: StubRegistry())
        let base = server.baseURL
        let client = StubServerClient(baseURL: base)
        try await client.stub(.pathPrefix("/avatars/"), named: "avatars", response: .image(.generated(width: 8, height: 8, pattern: .gradient), as: .png))
        for name in ["a", "b"] {
            _ = try await URLSession(configuration: .ephemeral).data(from: base.appendingPathComponent("avatars/\(name).png"))
        }
        try await client.wait(for: .pathPrefix("/avatars/"), count: 2)
        let journal = try await client.journal()
        expectRequested(journal, .pathPrefix("/avatars/"), times: 2)
        expectNotRequested(journal, .path("/avatars/c.png"))
        expectNoUnmatchedRequests(journal)
        #expect(journal.interactions.map(\.stubName) == ["avatars", "avatars"])
        await #expect(throws: JournalTimeoutError.self) {
            try await client.wait(for: .path("/avatars/c.png"), timeout: .milliseconds(300))
        }
        try await server.stop()
    }
}
