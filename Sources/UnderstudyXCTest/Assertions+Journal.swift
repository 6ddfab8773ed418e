import Understudy
import XCTest

// The same assertions on a journal alone: a registry's, or a running server's as
// `StubServerClient.journal()` reads it.

/// Asserts that `journal` saw requests matching `matcher`: exactly `times` of them, or at
/// least one when `times` is `nil`.
///
/// ```swift
/// XCTAssertRequested(try await server.journal(), .path("/cat.png"), times: 1)
/// ```
public func XCTAssertRequested(
    _ journal: Journal, _ matcher: RequestMatcher, times: Int? = nil,
    file: StaticString = #filePath, line: UInt = #line
) {
    if let message = FailureMessages.requested(journal, matcher, times: times) {
        XCTFail(message, file: file, line: line)
    }
}

/// Asserts that `journal` saw no request matching `matcher`.
public func XCTAssertNotRequested(
    _ journal: Journal, _ matcher: RequestMatcher,
    file: StaticString = #filePath, line: UInt = #line
) {
    if let message = FailureMessages.notRequested(journal, matcher) {
        XCTFail(message, file: file, line: line)
    }
}

/// Asserts that every request `journal` saw was answered by a stub.
public func XCTAssertNoUnmatchedRequests(
    _ journal: Journal,
    file: StaticString = #filePath, line: UInt = #line
) {
    if let message = FailureMessages.noUnmatchedRequests(journal) {
        XCTFail(message, file: file, line: line)
    }
}

/// Asserts that `journal` saw requests matching each of `matchers` in that order.
public func XCTAssertRequestOrder(
    _ journal: Journal, _ matchers: [RequestMatcher],
    file: StaticString = #filePath, line: UInt = #line
) {
    if let message = FailureMessages.requestOrder(journal, matchers) {
        XCTFail(message, file: file, line: line)
    }
}

/// Asserts that the first request `journal` saw matching `matcher` came on the same server
/// connection as another request, or on another one (see `ConnectionReuse`).
///
/// ```swift
/// XCTAssertRequested(try await server.journal(), .path("/b.png"), connection: .sameAs(.path("/a.png")))
/// ```
public func XCTAssertRequested(
    _ journal: Journal, _ matcher: RequestMatcher, connection: ConnectionReuse,
    file: StaticString = #filePath, line: UInt = #line
) {
    if let message = FailureMessages.requested(journal, matcher, connection: connection) {
        XCTFail(message, file: file, line: line)
    }
}
