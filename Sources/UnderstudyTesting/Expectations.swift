import Testing
import Understudy

/// Expects that requests matching `matcher` were made: exactly `times` of them, or at least
/// one when `times` is `nil`. The issue lists every request the journal saw.
///
/// ```swift
/// expectRequested(Stubbed.registry, .path("/cat.png"), times: 1)
/// ```
/// - Parameters:
///   - registry: the stubs whose journal is checked.
///   - matcher: the requests to count.
///   - times: the exact count, or `nil` for at least one.
///   - sourceLocation: where the issue is reported; leave the default (the caller's line).
public func expectRequested(
    _ registry: StubRegistry, _ matcher: RequestMatcher, times: Int? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    expectRequested(registry.journal, matcher, times: times, sourceLocation: sourceLocation)
}

/// Expects that no request matching `matcher` was made.
/// - Parameters:
///   - registry: the stubs whose journal is checked.
///   - matcher: the requests that must not have been made.
///   - sourceLocation: where the issue is reported; leave the default (the caller's line).
public func expectNotRequested(
    _ registry: StubRegistry, _ matcher: RequestMatcher,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    expectNotRequested(registry.journal, matcher, sourceLocation: sourceLocation)
}

/// Expects that every request was answered by a stub; the issue lists each unmatched request
/// with its nearest stubs and what differed.
/// - Parameters:
///   - registry: the stubs whose journal is checked.
///   - sourceLocation: where the issue is reported; leave the default (the caller's line).
public func expectNoUnmatchedRequests(
    _ registry: StubRegistry,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    expectNoUnmatchedRequests(registry.journal, sourceLocation: sourceLocation)
}

/// Expects that every registered stub answered at least once.
/// - Parameters:
///   - registry: the stubs to check.
///   - sourceLocation: where the issue is reported; leave the default (the caller's line).
public func expectAllStubsUsed(
    _ registry: StubRegistry,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    recordIssue(FailureMessages.allStubsUsed(registry), at: sourceLocation)
}

/// Expects that requests matching each of `matchers` were made in that order; other requests
/// may come between them.
///
/// ```swift
/// expectRequestOrder(Stubbed.registry, [.path("/thumb.webp"), .path("/full.webp")])
/// ```
/// - Parameters:
///   - registry: the stubs whose journal is checked.
///   - matchers: the requests, in the order they must have been made.
///   - sourceLocation: where the issue is reported; leave the default (the caller's line).
public func expectRequestOrder(
    _ registry: StubRegistry, _ matchers: [RequestMatcher],
    sourceLocation: SourceLocation = #_sourceLocation
) {
    expectRequestOrder(registry.journal, matchers, sourceLocation: sourceLocation)
}

func recordIssue(_ message: String?, at sourceLocation: SourceLocation) {
    if let message {
        Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
    }
}

/// Expects that the first request matching `matcher` came on the same server connection as
/// another request, or on another one (see `ConnectionReuse`).
/// - Parameters:
///   - registry: the stubs whose journal is checked.
///   - matcher: the request whose connection is checked.
///   - connection: the request it must share its connection with, or must not.
///   - sourceLocation: where the issue is reported; leave the default (the caller's line).
public func expectRequested(
    _ registry: StubRegistry, _ matcher: RequestMatcher, connection: ConnectionReuse,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    expectRequested(registry.journal, matcher, connection: connection, sourceLocation: sourceLocation)
}
