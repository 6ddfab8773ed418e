import Testing
import Understudy
import UnderstudyImages
import UnderstudySupport
import UnderstudyTesting

/// Runs `body` in a scope of `trait` opened by hand, inside `withKnownIssue`, and returns the
/// issues recorded (by the body or by the trait at the scope's end) with their locations, so a
/// test can read them instead of failing.
func issuesRecorded(
    by trait: StubbedTrait, _ body: @escaping @Sendable () async throws -> Void
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
