import Testing
import Understudy

// The same expectations on a journal alone: a registry's, or a running server's as
// `StubServerClient.journal()` reads it.

/// Expects that `journal` saw requests matching `matcher`: exactly `times` of them, or at
/// least one when `times` is `nil`.
///
/// ```swift
/// expectRequested(try await server.journal(), .path("/cat.png"), times: 1)
/// ```
/// - Parameters:
///   - journal: the journal checked.
///   - matcher: the requests to count.
///   - times: the exact count, or `nil` for at least one.
///   - sourceLocation: where the issue is reported; leave the default (the caller's line).
public func expectRequested(
    _ journal: Journal, _ matcher: RequestMatcher, times: Int? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    recordIssue(FailureMessages.requested(journal, matcher, times: times), at: sourceLocation)
}

/// Expects that `journal` saw no request matching `matcher`.
/// - Parameters:
///   - journal: the journal checked.
///   - matcher: the requests that must not have been made.
///   - sourceLocation: where the issue is reported; leave the default (the caller's line).
public func expectNotRequested(
    _ journal: Journal, _ matcher: RequestMatcher,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    recordIssue(FailureMessages.notRequested(journal, matcher), at: sourceLocation)
}

/// Expects that every request `journal` saw was answered by a stub.
/// - Parameters:
///   - journal: the journal checked.
///   - sourceLocation: where the issue is reported; leave the default (the caller's line).
public func expectNoUnmatchedRequests(
    _ journal: Journal,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    recordIssue(FailureMessages.noUnmatchedRequests(journal), at: sourceLocation)
}

/// Expects that `journal` saw requests matching each of `matchers` in that order.
/// - Parameters:
///   - journal: the journal checked.
///   - matchers: the requests, in the order they must have been made.
///   - sourceLocation: where the issue is reported; leave the default (the caller's line).
public func expectRequestOrder(
    _ journal: Journal, _ matchers: [RequestMatcher],
    sourceLocation: SourceLocation = #_sourceLocation
) {
    recordIssue(FailureMessages.requestOrder(journal, matchers), at: sourceLocation)
}

/// Expects that the first request `journal` saw matching `matcher` came on the same server
/// connection as another request, or on another one (see `ConnectionReuse`).
///
/// ```swift
/// expectRequested(try await server.journal(), .path("/b.png"), connection: .sameAs(.path("/a.png")))
/// ```
/// - Parameters:
///   - journal: the journal checked.
///   - matcher: the request whose connection is checked.
///   - connection: the request it must share its connection with, or must not.
///   - sourceLocation: where the issue is reported; leave the default (the caller's line).
public func expectRequested(
    _ journal: Journal, _ matcher: RequestMatcher, connection: ConnectionReuse,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    recordIssue(FailureMessages.requested(journal, matcher, connection: connection), at: sourceLocation)
}
