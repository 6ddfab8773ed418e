import Understudy
import XCTest

/// Asserts that requests matching `matcher` were made: exactly `times` of them, or at least
/// one when `times` is `nil`. Failures list every request the journal saw.
///
/// ```swift
/// XCTAssertRequested(stubs, .path("/cat.png"), times: 1)
/// ```
public func XCTAssertRequested(
    _ registry: StubRegistry, _ matcher: RequestMatcher, times: Int? = nil,
    file: StaticString = #filePath, line: UInt = #line
) {
    XCTAssertRequested(registry.journal, matcher, times: times, file: file, line: line)
}

/// Asserts that no request matching `matcher` was made.
public func XCTAssertNotRequested(
    _ registry: StubRegistry, _ matcher: RequestMatcher,
    file: StaticString = #filePath, line: UInt = #line
) {
    XCTAssertNotRequested(registry.journal, matcher, file: file, line: line)
}

/// Asserts that every request was answered by a stub; the failure lists each unmatched
/// request with its nearest stubs and what differed.
public func XCTAssertNoUnmatchedRequests(
    _ registry: StubRegistry,
    file: StaticString = #filePath, line: UInt = #line
) {
    XCTAssertNoUnmatchedRequests(registry.journal, file: file, line: line)
}

/// Asserts that every registered stub answered at least once.
public func XCTAssertAllStubsUsed(
    _ registry: StubRegistry,
    file: StaticString = #filePath, line: UInt = #line
) {
    if let message = FailureMessages.allStubsUsed(registry) {
        XCTFail(message, file: file, line: line)
    }
}

/// Asserts that requests matching each of `matchers` were made in that order; other requests
/// may come between them.
///
/// ```swift
/// XCTAssertRequestOrder(stubs, [.path("/thumb.webp"), .path("/full.webp")])
/// ```
public func XCTAssertRequestOrder(
    _ registry: StubRegistry, _ matchers: [RequestMatcher],
    file: StaticString = #filePath, line: UInt = #line
) {
    XCTAssertRequestOrder(registry.journal, matchers, file: file, line: line)
}

/// Asserts that the first request matching `matcher` came on the same server connection as
/// another request, or on another one (see `ConnectionReuse`).
public func XCTAssertRequested(
    _ registry: StubRegistry, _ matcher: RequestMatcher, connection: ConnectionReuse,
    file: StaticString = #filePath, line: UInt = #line
) {
    XCTAssertRequested(registry.journal, matcher, connection: connection, file: file, line: line)
}
