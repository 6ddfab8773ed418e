import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import Understudy
import UnderstudyTesting

/// The expectations record the shared failure messages as issues at the caller's line.
@Suite(.stubbed(failsOnUnmatchedRequests: false)) struct ExpectationTests {
    /// Stubs "a" and "b"; requests /a (matched) then /zzz (unmatched).
    func journaled() async -> StubRegistry {
        let stubs = Stubbed.registry
        stubs.stub(.path("/a"), named: "a", response: .status(200))
        stubs.stub(.path("/b"), named: "b", response: .status(200))
        _ = try? await Stubbed.session.data(from: URL(string: "http://x.test/a")!)
        _ = try? await Stubbed.session.data(from: URL(string: "http://x.test/zzz")!)
        return stubs
    }

    /// Expects `body` to record exactly the issue `message` at `line` of this file.
    func expectIssue(_ message: String?, atLine line: Int, _ body: () -> Void) throws {
        let message = try #require(message, "the shared check passed; the expectation under test cannot fail")
        withKnownIssue {
            body()
        } matching: { issue in
            issue.sourceLocation?.line == line && issue.sourceLocation?.filePath == #filePath
                && issue.comments.map(\.rawValue) == [message]
        }
    }

    @Test func expectRequestedReportsAtTheCallersLine() async throws {
        let stubs = await journaled()
        try expectIssue(FailureMessages.requested(stubs.journal, .path("/a"), times: 2), atLine: #line + 1) {
            expectRequested(stubs, .path("/a"), times: 2)
        }
    }

    @Test func expectNotRequestedReportsAtTheCallersLine() async throws {
        let stubs = await journaled()
        try expectIssue(FailureMessages.notRequested(stubs.journal, .path("/zzz")), atLine: #line + 1) {
            expectNotRequested(stubs, .path("/zzz"))
        }
    }

    @Test func expectNoUnmatchedRequestsReportsAtTheCallersLine() async throws {
        let stubs = await journaled()
        try expectIssue(FailureMessages.noUnmatchedRequests(stubs.journal), atLine: #line + 1) {
            expectNoUnmatchedRequests(stubs)
        }
    }

    @Test func expectAllStubsUsedReportsAtTheCallersLine() async throws {
        let stubs = await journaled()
        #expect(FailureMessages.allStubsUsed(stubs) == #"1 stub never used: "b""#)
        try expectIssue(FailureMessages.allStubsUsed(stubs), atLine: #line + 1) {
            expectAllStubsUsed(stubs)
        }
    }

    @Test func expectRequestOrderReportsAtTheCallersLine() async throws {
        let stubs = await journaled()
        try expectIssue(FailureMessages.requestOrder(stubs.journal, [.path("/zzz"), .path("/a")]), atLine: #line + 1) {
            expectRequestOrder(stubs, [.path("/zzz"), .path("/a")])
        }
    }

    @Test func theMessageIsTheXCTestHelpersText() async throws {
        let stubs = await journaled()
        try expectIssue("""
            expected 2 requests matching path is /a, got 1
            Requests made:
              1. GET http://x.test/a -> stub "a" 200
              2. GET http://x.test/zzz -> unmatched unmatched
            """, atLine: #line + 1) {
            expectRequested(stubs, .path("/a"), times: 2)
        }
    }

    /// Passing expectations record nothing: any issue here would fail this test.
    @Test func passingExpectationsRecordNothing() async throws {
        let stubs = Stubbed.registry
        stubs.stub(.path("/a"), named: "a", response: .status(200))
        stubs.stub(.path("/b"), named: "b", response: .status(200))
        _ = try await Stubbed.session.data(from: URL(string: "http://x.test/a")!)
        _ = try await Stubbed.session.data(from: URL(string: "http://x.test/b")!)
        expectRequested(stubs, .path("/a"), times: 1)
        expectRequested(stubs, .pathPrefix("/"))
        expectNotRequested(stubs, .path("/c"))
        expectNoUnmatchedRequests(stubs)
        expectAllStubsUsed(stubs)
        expectRequestOrder(stubs, [.path("/a"), .path("/b")])
    }
}
