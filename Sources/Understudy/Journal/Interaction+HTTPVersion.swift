extension Interaction {
    /// The HTTP version a request came over.
    ///
    /// ```swift
    /// XCTAssertEqual(stubs.journal.interactions.map(\.httpVersion), [.http2, .http2])
    /// ```
    public enum HTTPVersion: String, Sendable, Hashable, Codable, CustomStringConvertible {
        /// HTTP/1.1 (and the in-process transport, which speaks no wire protocol).
        case http1_1 = "HTTP/1.1"
        /// HTTP/2, over TLS (ALPN `h2`) or with prior knowledge (h2c).
        case http2 = "HTTP/2"

        /// As HTTP writes it: `HTTP/1.1`, `HTTP/2`.
        public var description: String { rawValue }
    }
}
