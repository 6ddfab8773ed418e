import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import Understudy
import UnderstudyImages
import UnderstudySupport
import UnderstudyTesting

/// At the end of a test, the trait records one issue per unmatched request, with its near misses.
@Suite struct UnmatchedRequestTests {
    @Test func eachUnmatchedRequestIsAnIssueWithItsNearMisses() async throws {
        let recorded = try await issuesRecorded(by: .stubbed(server: true)) {
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
        let recorded = try await issuesRecorded(by: .stubbed) {
            Stubbed.registry.stub(.path("/cat.png"), response: .status(200))
            _ = try await Stubbed.session.data(from: URL(string: "http://img.test/cat.png")!)
        }
        #expect(recorded.isEmpty)
    }

    @Test func unmatchedRequestsCanBeAllowed() async throws {
        let recorded = try await issuesRecorded(by: .stubbed(failsOnUnmatchedRequests: false)) {
            _ = try? await Stubbed.session.data(from: URL(string: "http://img.test/dog.png")!)
            #expect(Stubbed.registry.journal.unmatched.count == 1)
        }
        #expect(recorded.isEmpty)
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
