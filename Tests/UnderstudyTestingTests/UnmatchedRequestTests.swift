import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import Understudy
import UnderstudyTesting

/// At the end of a test, the trait records one issue per unmatched request, with its near misses.
///
/// These tests open the trait's scope themselves, inside `withKnownIssue`, so that the issues
/// it records at the scope's end can be read here instead of failing this test.
@Suite struct UnmatchedRequestTests {
    /// Runs `body` in a scope of `trait` and returns the issues recorded, with their locations.
    func issues(
        of trait: StubbedTrait, _ body: @escaping @Sendable () async throws -> Void
    ) async throws -> [(text: String, location: SourceLocation?)] {
        let test = try #require(Test.current)
        let recorded = LockedState<[(text: String, location: SourceLocation?)]>([])
        try await withKnownIssue(isIntermittent: true) {
            try await trait.provideScope(for: test, testCase: Test.Case.current, performing: body)
        } matching: { issue in
            // An issue the trait records carries its text as the comment; an error it throws is the error.
            let text = issue.comments.isEmpty ? issue.error.map { "\($0)" } ?? "" : issue.comments.map(\.rawValue).joined(separator: "\n")
            recorded.withLock { $0.append((text, issue.sourceLocation)) }
            return true
        }
        return recorded.withLock { $0 }
    }

    @Test func eachUnmatchedRequestIsAnIssueWithItsNearMisses() async throws {
        let recorded = try await issues(of: .stubbed(server: true)) {
            Stubbed.registry.stub(.host("img.test") && .path("/cat.png"), named: "cat", response: .status(200))
            _ = try await Stubbed.session.data(from: URL(string: "http://img.test/cat.png")!)
            // One unmatched in-process (the session fails the task), one over the wire (404).
            await #expect(throws: URLError.self) {
                _ = try await Stubbed.session.data(from: URL(string: "http://img.test/dog.png")!)
            }
            let plain = URLSession(configuration: .ephemeral)
            defer { plain.invalidateAndCancel() }
            let (_, response) = try await plain.data(from: Stubbed.server!.baseURL.appendingPathComponent("cat.png"))
            #expect((response as? HTTPURLResponse)?.statusCode == 404)
        }
        #expect(recorded.map(\.text).count == 2)
        #expect(recorded.first?.text == """
            1 unmatched request:
              GET http://img.test/dog.png
                1. "cat" (1 of 2 parts matched): path is /cat.png (got /dog.png)
            """)
        #expect(recorded.last?.text.hasPrefix("1 unmatched request:\n  GET http://127.0.0.1:") == true)
        #expect(recorded.last?.text.hasSuffix("""
            /cat.png
                1. "cat" (1 of 2 parts matched): host is img.test (got 127.0.0.1)
            """) == true)
        // Reported at the test's declaration: the end of the test has no line of its own.
        let test = try #require(Test.current)
        #expect(recorded.allSatisfy { $0.location == test.sourceLocation })
    }

    @Test func aTestWithoutUnmatchedRequestsRecordsNothing() async throws {
        let recorded = try await issues(of: .stubbed) {
            Stubbed.registry.stub(.path("/cat.png"), response: .status(200))
            _ = try await Stubbed.session.data(from: URL(string: "http://img.test/cat.png")!)
        }
        #expect(recorded.isEmpty)
    }

    @Test func unmatchedRequestsCanBeAllowed() async throws {
        let recorded = try await issues(of: .stubbed(failsOnUnmatchedRequests: false)) {
            _ = try? await Stubbed.session.data(from: URL(string: "http://img.test/dog.png")!)
            #expect(Stubbed.registry.journal.unmatched.count == 1)
        }
        #expect(recorded.isEmpty)
    }

    @Test func stubFilesThatAreNotThereFailTheTestWithThePathTried() async throws {
        let recorded = try await issues(of: .stubbed(from: "No/Such/Stubs")) {
            Issue.record("the body ran")
        }
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        #expect(recorded.map(\.text) == ["""
            .stubbed(from: "No/Such/Stubs") in \(#filePath): \(package.path)/No/Such/Stubs does not exist \
            (the path is taken relative to \(package.path), the package holding the test file)
            """])
    }

    @Test func stubbedValuesOutsideTheTraitAreAnIssueNotACrash() async throws {
        let recorded = LockedState<[String]>([])
        withKnownIssue {
            _ = Stubbed.registry
            _ = Stubbed.session
        } matching: { issue in
            recorded.withLock { $0.append(issue.comments.map(\.rawValue).joined()) }
            return true
        }
        #expect(recorded.withLock { $0 } == [
            "Stubbed.registry was read outside a test with the .stubbed trait; add .stubbed to the test or its suite",
            "Stubbed.session was read outside a test with the .stubbed trait; add .stubbed to the test or its suite",
        ])
        #expect(Stubbed.server == nil)
    }
}
