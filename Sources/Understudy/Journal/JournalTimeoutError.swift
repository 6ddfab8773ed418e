import Foundation

/// ``Journal/wait(for:count:timeout:)`` gave up.
public struct JournalTimeoutError: Error, Sendable, CustomStringConvertible {
    /// What was waited for.
    public let matcher: RequestMatcher
    /// How many were needed.
    public let expected: Int
    /// How many had arrived.
    public let seen: Int
    /// How long it waited.
    public let timeout: Duration

    /// The error for a wait on `matcher` that saw `seen` of `expected` requests in `timeout`.
    package init(matcher: RequestMatcher, expected: Int, seen: Int, timeout: Duration) {
        self.matcher = matcher
        self.expected = expected
        self.seen = seen
        self.timeout = timeout
    }

    public var description: String {
        "timed out after \(timeout.compactDescription) waiting for \(expected) request(s) matching \(matcher); saw \(seen)"
    }
}
