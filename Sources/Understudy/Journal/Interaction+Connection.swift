import Foundation

extension Interaction {
    /// What the TLS handshake of a server connection settled, as the journal shows it for each
    /// request that came over the connection.
    ///
    /// ```swift
    /// let first = try XCTUnwrap(stubs.journal.interactions.first)
    /// XCTAssertEqual(first.tls?.applicationProtocol, "h2")
    /// XCTAssertEqual(first.tls?.serverName, "img.example.com")
    /// ```
    public struct TLS: Sendable, Hashable {
        /// The host name the client asked for (SNI), if it sent one.
        public let serverName: String?
        /// The protocol ALPN chose (`h2`, `http/1.1`), if the client offered any.
        public let applicationProtocol: String?
        /// `TLSv1.2` or `TLSv1.3`.
        public let protocolVersion: String
        /// The cipher suite the handshake settled, by its IANA name (`TLS_AES_128_GCM_SHA256`);
        /// `nil` when it could not be read from the server's hello.
        public let cipherSuite: String?

        package init(serverName: String?, applicationProtocol: String?, protocolVersion: String, cipherSuite: String?) {
            self.serverName = serverName
            self.applicationProtocol = applicationProtocol
            self.protocolVersion = protocolVersion
            self.cipherSuite = cipherSuite
        }
    }
}

/// The TLS facts of one server connection, made once and shared by the journal entries of its
/// requests (a reference each, not four strings each).
package final class ConnectionTLS: Sendable {
    package let facts: Interaction.TLS

    package init(_ facts: Interaction.TLS) {
        self.facts = facts
    }
}

/// Which server connection a request came on, and its place there.
package struct ConnectionFacts: Sendable, Equatable {
    /// The connection's index on the server, from 1 in order of acceptance.
    package let connection: Int
    /// The request's index on its connection, from 1.
    package let exchange: Int
    /// What the connection's TLS handshake settled, when it had TLS.
    package let tls: ConnectionTLS?

    package init(connection: Int, exchange: Int, tls: ConnectionTLS?) {
        self.connection = connection
        self.exchange = exchange
        self.tls = tls
    }

    package static func == (lhs: ConnectionFacts, rhs: ConnectionFacts) -> Bool {
        lhs.connection == rhs.connection && lhs.exchange == rhs.exchange && lhs.tls?.facts == rhs.tls?.facts
    }
}
