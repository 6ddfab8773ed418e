import Foundation
internal import NIOCore
internal import NIOHTTP1
internal import NIOPosix
import Understudy

/// Answers `CONNECT host:port` on the plain port, as a forward proxy for `https` URLs.
///
/// - An **intercepted** host (`--intercept`, every host by default, when the server has TLS):
///   `200`, then TLS as that host with a leaf from the local CA, and the requests inside go
///   through the same HTTP/1.1 handlers, matched as `https://host/...` and journaled like any
///   other request.
/// - A **tunnelled** host (`--tunnel`, which wins): `200`, then the bytes are spliced to the real
///   `host:port` both ways, untouched, and the tunnel is journaled as one `CONNECT` entry with
///   the bytes each way once it closes.
enum ConnectProxy {
    /// What becomes of a `CONNECT` to `host`.
    enum Route: Equatable {
        case intercept, tunnel, refuse
    }

    /// The route for `host` under `configuration`: a tunnel glob wins; an intercept glob needs TLS.
    static func route(forHost host: String, configuration: StubServer.Configuration, canIntercept: Bool) -> Route {
        let host = host.lowercased()
        func matches(_ globs: [String]) -> Bool {
            globs.contains { $0 == "*" || HostPattern($0).matches(host) }
        }
        if matches(configuration.tunnel) { return .tunnel }
        if canIntercept, matches(configuration.intercept) { return .intercept }
        return .refuse
    }

    /// `host` and `port` of a `CONNECT` target (`img.example.com:443`, `[::1]:8443`); `nil`
    /// when it is not one.
    static func target(_ uri: String) -> (host: String, port: Int)? {
        guard let colon = uri.lastIndex(of: ":"), let port = Int(uri[uri.index(after: colon)...]), (1...65_535).contains(port) else {
            return nil
        }
        var host = String(uri[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, !host.contains("/"), !host.contains(" ") else { return nil }
        return (host, port)
    }

    /// The bytes that tell the client its tunnel is open.
    static let established = "HTTP/1.1 200 Connection Established\r\n\r\n"

    /// Takes the HTTP/1.1 handlers off `channel`, leaving the socket to what comes next.
    static func removeHTTPHandlers(from channel: any Channel) throws {
        let sync = channel.pipeline.syncOperations
        _ = try sync.removeHandler(context: sync.context(handlerType: InputEndFlush.self))
        _ = try sync.removeHandler(context: sync.context(handlerType: ReadTap.self))
        _ = try sync.removeHandler(context: sync.context(handlerType: ByteToMessageHandler<HTTPRequestDecoder>.self))
        _ = try sync.removeHandler(context: sync.context(handlerType: HTTP1ConnectionHandler.self))
    }

    /// Intercepts: `200`, then TLS as `host` and HTTP/1.1 inside, matched as `https://host:port`.
    static func intercept(_ channel: any Channel, host: String, port: Int, shared: ServerShared, tls: TLSContextProvider) throws {
        try removeHTTPHandlers(from: channel)
        channel.writeAndFlush(ByteBuffer(string: established), promise: nil)
        let authority = port == 443 ? host : "\(host.contains(":") ? "[\(host)]" : host):\(port)"
        try tls.addTLS(to: channel.pipeline.syncOperations, defaultHost: host, position: .first) { name in
            shared.noteServerName(name, of: channel)
        }
        try ServerPipeline.configureNegotiated(
            channel, shared: shared, origin: ConnectionOrigin(scheme: "https", authority: { authority }), authority: authority
        )
        channel.read()
    }

    /// Splices `channel` to the real `host:port`, journaling the tunnel once both sides close.
    static func tunnel(
        _ channel: any Channel, host: String, port: Int, request: StubRequest, startTime: Date, shared: ServerShared
    ) throws {
        try removeHTTPHandlers(from: channel)
        let responder = shared.responder
        ClientBootstrap(group: channel.eventLoop)
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .connectTimeout(.seconds(10))
            .connect(host: host, port: port)
            .whenComplete { result in
                switch result {
                case .success(let upstream):
                    let (clientSide, upstreamSide) = TunnelGlue.pair()
                    do {
                        try channel.pipeline.syncOperations.addHandler(clientSide)
                        try upstream.pipeline.syncOperations.addHandler(upstreamSide)
                    } catch {
                        channel.close(promise: nil)
                        upstream.close(promise: nil)
                        return
                    }
                    // Counted on the loop both channels share, once both have closed.
                    let sides = NIOLoopBound((clientSide, upstreamSide), eventLoop: channel.eventLoop)
                    channel.closeFuture.and(upstream.closeFuture).whenComplete { _ in
                        let (fromClient, toClient) = (sides.value.0.bytesRead, sides.value.1.bytesRead)
                        responder.recordTunnel(request, startTime: startTime, bytesFromClient: fromClient, bytesToClient: toClient)
                    }
                    channel.writeAndFlush(ByteBuffer(string: established), promise: nil)
                    channel.read()
                case .failure(let error):
                    let message = "CONNECT to \(host):\(port) failed: \(error)"
                    let answer = StubAnswer(response: .text(status: 502, message + "\n"), kind: .failed(message))
                    var bytes = ByteBuffer(string: "HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: \(answer.response.body.count)\r\nConnection: close\r\n\r\n")
                    bytes.writeBytes(answer.response.body)
                    channel.writeAndFlush(bytes).whenComplete { _ in channel.close(promise: nil) }
                    responder.close(nil, request: request, startTime: startTime, answer: answer,
                                    report: DeliveryReport(headSent: true, bodyBytesSent: answer.response.body.count, ending: .completed, httpVersion: .http1_1))
                }
            }
    }
}
