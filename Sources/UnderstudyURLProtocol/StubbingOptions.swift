import Foundation

/// What the URL protocol does with a request no stub matches.
public enum UnmatchedPolicy: Sendable, Hashable {
    /// Fail the task with `URLError(.resourceUnavailable)` whose description names the nearest
    /// stubs and what differed. The default: nothing reaches the network by accident.
    case fail
    /// Answer 404 `text/plain` with the same near-miss report as the body (what the server does).
    case notFound
    /// Let the request through to the real network (journaled with transport `.proxy`).
    case passThrough
}

/// How a stubbed session behaves.
public struct StubbingOptions: Sendable, Hashable {
    /// What happens to unmatched requests.
    public var unmatched: UnmatchedPolicy

    /// Creates options.
    public init(unmatched: UnmatchedPolicy = .fail) {
        self.unmatched = unmatched
    }
}
