internal import NIOCore
internal import NIOSSL
import Understudy

/// One accepted connection as its requests' journal entries name it: its index on the server,
/// what its TLS handshake settled, and how many exchanges it carried so far. Used only on the
/// connection's event loop.
final class ServerConnection {
    /// From 1, in order of acceptance (``ServerShared/track(_:)``).
    let index: Int
    let tls: ConnectionTLS?
    private var exchanges = 0

    init(index: Int, tls: ConnectionTLS? = nil) {
        self.index = index
        self.tls = tls
    }

    /// The facts of the connection's next exchange: its requests (HTTP/1.1) or streams (HTTP/2)
    /// are numbered from 1 in the order they arrive.
    func nextExchange() -> ConnectionFacts {
        exchanges += 1
        return ConnectionFacts(connection: index, exchange: exchanges, tls: tls)
    }

    /// The connection `channel` is, set up after its TLS handshake (if any) settled: `serverName`
    /// is what the client's hello asked for, `applicationProtocol` what ALPN chose.
    static func accepted(_ channel: any Channel, shared: ServerShared, applicationProtocol: String? = nil) -> ServerConnection {
        let (index, serverName) = shared.track(channel)
        let pipeline = channel.pipeline.syncOperations
        var cipherSuite: String?
        if let cipher = try? pipeline.handler(type: ServerHelloCipher.self) {
            cipherSuite = cipher.cipherSuite
            pipeline.removeHandler(cipher, promise: nil)
        }
        guard let tls = try? pipeline.handler(type: NIOSSLServerHandler.self), let version = tls.tlsVersion else {
            return ServerConnection(index: index)
        }
        let facts = Interaction.TLS(
            serverName: serverName, applicationProtocol: applicationProtocol, protocolVersion: version.name, cipherSuite: cipherSuite
        )
        return ServerConnection(index: index, tls: ConnectionTLS(facts))
    }
}

extension TLSVersion {
    /// `TLSv1.3`, as OpenSSL and the journal spell it.
    var name: String {
        switch self {
        case .tlsv1: "TLSv1"
        case .tlsv11: "TLSv1.1"
        case .tlsv12: "TLSv1.2"
        case .tlsv13: "TLSv1.3"
        }
    }
}
