/// Whether a request came on the same server connection as another, for
/// `XCTAssertRequested(_:_:connection:)` and `expectRequested(_:_:connection:)`: image
/// pipelines reuse connections wrongly under HTTP/2 coalescing and after faults.
///
/// ```swift
/// XCTAssertRequested(stubs, .path("/b.png"), connection: .sameAs(.path("/a.png")))
/// XCTAssertRequested(stubs, .path("/after-reset.png"), connection: .otherThan(.path("/reset.png")))
/// ```
public enum ConnectionReuse: Sendable, CustomStringConvertible {
    /// On the connection the first request matching this came on.
    case sameAs(RequestMatcher)
    /// On another connection than the first request matching this came on.
    case otherThan(RequestMatcher)

    /// `on the same connection as path is /a.png`, as failure messages say it.
    public var description: String {
        switch self {
        case .sameAs(let matcher): "on the same connection as \(matcher)"
        case .otherThan(let matcher): "on another connection than \(matcher)"
        }
    }
}

extension FailureMessages {
    /// For the `connection:` forms of `XCTAssertRequested` and `expectRequested`: the first
    /// request matching `matcher` against the first matching the other.
    package static func requested(_ journal: Journal, _ matcher: RequestMatcher, connection reuse: ConnectionReuse) -> String? {
        let other: RequestMatcher
        switch reuse {
        case .sameAs(let matcher), .otherThan(let matcher): other = matcher
        }
        let interactions = journal.interactions
        guard let request = interactions.first(where: { matcher.matches($0.request) }) else {
            return "expected a request matching \(matcher) \(reuse), got none"
        }
        guard let reference = interactions.first(where: { other.matches($0.request) }) else {
            return "expected a request matching \(other) to compare connections with, got none"
        }
        guard let connection = request.connection, let referenceConnection = reference.connection else {
            let inProcess = request.connection == nil ? request : reference
            return "request \(inProcess.id) (\(inProcess.request)) came on no server connection (in-process): connections cannot be compared"
        }
        let shared = connection == referenceConnection
        switch (reuse, shared) {
        case (.sameAs, true), (.otherThan, false):
            return nil
        case (.sameAs, false):
            return "expected request \(request.id) (\(request.request)) on the connection of request \(reference.id) (\(reference.request)), "
                + "connection \(referenceConnection); it came on connection \(connection)"
        case (.otherThan, true):
            return "expected request \(request.id) (\(request.request)) on another connection than request \(reference.id) "
                + "(\(reference.request)); both came on connection \(connection) (exchanges \(reference.exchange ?? 0) and \(request.exchange ?? 0))"
        }
    }
}
