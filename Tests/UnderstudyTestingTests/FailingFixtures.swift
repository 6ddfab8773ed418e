import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import Understudy
import UnderstudyTesting

/// Tests that fail on purpose, to show what a failing test carries. Only `AttachmentTests` runs
/// them, in a child process of this test binary with `UNDERSTUDY_FAILING_FIXTURES=1`; in a normal
/// run they are skipped.
@Suite(.stubbed, .enabled(if: ProcessInfo.processInfo.environment["UNDERSTUDY_FAILING_FIXTURES"] == "1"))
struct FailingFixtures {
    /// Stubs "cat" for /cat.png and requests it once.
    static func requestTheCat() async throws {
        Stubbed.registry.stub(.host("img.test") && .path("/cat.png"), named: "cat", response: .text("meow"))
        _ = try await Stubbed.session.data(from: URL(string: "http://img.test/cat.png")!)
    }

    @Test func unmatchedRequest() async throws {
        try await Self.requestTheCat()
        _ = try? await Stubbed.session.data(from: URL(string: "http://img.test/dog.png")!)
    }

    @Test func failedExpectation() async throws {
        try await Self.requestTheCat()
        expectRequested(Stubbed.registry, .path("/cat.png"), times: 2)
    }

    @Test func failedInAChildTask() async throws {
        try await Self.requestTheCat()
        await Task {
            #expect(Stubbed.registry.journal.count == 2)
        }.value
    }

    @Test func thrownError() async throws {
        try await Self.requestTheCat()
        throw URLError(.badServerResponse)
    }

    @Test func passes() async throws {
        try await Self.requestTheCat()
    }

    @Test func knownIssueOnly() async throws {
        try await Self.requestTheCat()
        withKnownIssue {
            Issue.record("expected")
        }
    }

    @Test func warningOnly() async throws {
        try await Self.requestTheCat()
        Issue.record("only a warning", severity: .warning)
    }

    @Test func cancelled() async throws {
        try await Self.requestTheCat()
        try Test.cancel("not today")
    }
}
