import Foundation
internal import NIOCore
internal import NIOHTTP1
import Understudy

/// The last handler of an HTTP/1.1 connection: hands each ``ServerRequest`` to its
/// ``HTTP1Connection``, whose ``StubExchange`` answers it (the same code HTTP/2 streams use).
///
/// Two kinds of request go elsewhere: those under `/__admin/` to the ``AdminAPI`` through an
/// ``AdminExchange`` (as HTTP/2 does), never matched against stubs nor journaled, and `CONNECT`
/// to ``ConnectProxy``. A handler of their own in front of this one would cost every stub
/// request one more hop and one more unwrapping of the request.
final class StubRequestHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ServerRequest

    private let shared: ServerShared
    private let connection: HTTP1Connection
    private let flushes: TurnFlushes
    private let admin: AdminAPI
    /// Admin answers' writer: their bodies are in memory, never sent from a file.
    private var adminWriter: HTTP1ResponseWriter?
    private var adminExchange: AdminExchange?

    init(shared: ServerShared, connection: HTTP1Connection, flushes: TurnFlushes) {
        self.shared = shared
        self.connection = connection
        self.flushes = flushes
        self.admin = shared.admin
    }

    func handlerAdded(context: ChannelHandlerContext) {
        connection.attach(context, flushes: flushes)
        adminWriter = HTTP1ResponseWriter(context: context, sendsFiles: false, clock: connection.exchange.clock)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        adminExchange?.cancel()
        adminExchange = nil
        // The writers hold the context, which holds this handler.
        connection.detach()
        adminWriter = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .refused(let answer, let request, let arrival):
            connection.refuse(answer, request: request, arrival: arrival)
        case .request(let head, let body, let arrival):
            if AdminExchange.isAdmin(head.uri), let adminWriter {
                adminExchange = AdminExchange.start(head, body: body, admin: admin, writer: adminWriter)
            } else if head.method == .CONNECT {
                connect(head, arrival: arrival, context: context)
            } else {
                connection.answer(head, body: body, arrival: arrival)
            }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        connection.clientLeft()
        adminExchange?.cancel()
        adminExchange = nil
        context.fireChannelInactive()
    }

    /// `CONNECT host:port`: intercepted (TLS as the host, the stubs answer inside), spliced to
    /// the real host, or refused, as ``ConnectProxy/route(forHost:configuration:canIntercept:)`` says.
    private func connect(_ head: HTTPRequestHead, arrival: ServerRequest.Arrival, context: ChannelHandlerContext) {
        let method = head.method.rawValue
        let request = connection.exchange.request(head, body: nil)
        guard let (host, port) = ConnectProxy.target(head.uri) else {
            let answer = StubAnswer.refused(status: 400, "bad request: CONNECT needs a host:port target, not '\(head.uri)'")
            return connection.deliver(answer, request: request, version: head.version, arrival: arrival)
        }
        let authority = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        let tunnelRequest = StubRequest(method: method, url: URL(string: "https://\(authority)")!, headers: request.headers)
        let shared = self.shared
        let channel = context.channel
        switch ConnectProxy.route(forHost: host, configuration: shared.configuration, canIntercept: shared.tls != nil) {
        case .refuse:
            let reason = shared.tls == nil
                ? "CONNECT \(authority) refused: this server has no TLS to intercept it with (start it with --tls-port or tls:), and it is not a --tunnel host"
                : "CONNECT \(authority) refused: the host is neither an --intercept nor a --tunnel host"
            connection.deliver(.refused(status: shared.tls == nil ? 501 : 403, reason), request: tunnelRequest, version: head.version, arrival: arrival)
        case .intercept:
            let provider: TLSContextProvider
            do {
                provider = try shared.tls!.get().provider
            } catch {
                let answer = StubAnswer.refused(status: 502, "CONNECT \(authority) cannot be intercepted: \(error)")
                return connection.deliver(answer, request: tunnelRequest, version: head.version, arrival: arrival)
            }
            // After this read is through the handlers that are about to go.
            context.eventLoop.execute {
                do {
                    try ConnectProxy.intercept(channel, host: host, port: port, shared: shared, tls: provider)
                } catch {
                    channel.close(promise: nil)
                }
            }
        case .tunnel:
            context.eventLoop.execute {
                do {
                    try ConnectProxy.tunnel(channel, host: host, port: port, request: tunnelRequest, startTime: arrival.start, shared: shared)
                } catch {
                    channel.close(promise: nil)
                }
            }
        }
    }
}
