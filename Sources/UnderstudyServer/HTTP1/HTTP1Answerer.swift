import Foundation
internal import NIOCore
internal import NIOHTTP1
import Understudy

/// Answers what an HTTP/1.1 connection's ``HTTP1ConnectionHandler`` passes on, one
/// ``ServerRequest`` at a time: hands each to the connection's ``HTTP1Connection``, whose
/// ``StubExchange`` answers it (the same code HTTP/2 streams use), except `CONNECT`, which
/// goes to ``ConnectProxy``.
///
/// Not a handler: the connection handler calls it with its own context. A handler of its own
/// behind that one would cost every request one more hop for each read, `channelReadComplete`
/// and `read`, and the request one more wrapping in a `NIOAny`.
final class HTTP1Answerer {
    private let shared: ServerShared
    private let connection: HTTP1Connection
    private let flushes: TurnFlushes

    init(shared: ServerShared, connection: HTTP1Connection, flushes: TurnFlushes) {
        self.shared = shared
        self.connection = connection
        self.flushes = flushes
    }

    /// Responses go to `context`, the connection handler's, from now on; `ended` is called
    /// each time one has been written in full and the connection stays open.
    func attach(_ context: ChannelHandlerContext, ended: @escaping () -> Void) {
        connection.attach(context, flushes: flushes, ended: ended)
    }

    /// The connection handler is gone: nothing more is written.
    func detach() {
        connection.detach()
    }

    /// Answers `request`, which arrived on `context`'s channel.
    func answer(_ request: ServerRequest, context: ChannelHandlerContext) {
        switch request {
        case .refused(let answer, let request, let arrival):
            connection.refuse(answer, request: request, arrival: arrival)
        case .request(let head, let body, let arrival, let bodyUnread):
            if head.method == "CONNECT" {
                connect(head, arrival: arrival, context: context)
            } else {
                connection.answer(head, body: body, arrival: arrival, bodyUnread: bodyUnread)
            }
        }
    }

    /// The client went away (or the server is stopping): what is under way is cancelled.
    func clientLeft() {
        connection.clientLeft()
    }

    /// `CONNECT host:port`: intercepted (TLS as the host, the stubs answer inside), spliced to
    /// the real host, or refused, as ``ConnectProxy/route(forHost:configuration:canIntercept:)`` says.
    private func connect(_ head: RequestHead, arrival: ServerRequest.Arrival, context: ChannelHandlerContext) {
        let method = head.method
        let request = connection.exchange.request(head, body: nil)
        guard let (host, port) = ConnectProxy.target(head.target) else {
            let answer = StubAnswer.refused(status: 400, "bad request: CONNECT needs a host:port target, not '\(head.target)'")
            return connection.deliver(answer, request: request, version: HTTPVersion(head.version), arrival: arrival)
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
            connection.deliver(.refused(status: shared.tls == nil ? 501 : 403, reason), request: tunnelRequest, version: HTTPVersion(head.version), arrival: arrival)
        case .intercept:
            let provider: TLSContextProvider
            do {
                provider = try shared.tls!.get().provider
            } catch {
                let answer = StubAnswer.refused(status: 502, "CONNECT \(authority) cannot be intercepted: \(error)")
                return connection.deliver(answer, request: tunnelRequest, version: HTTPVersion(head.version), arrival: arrival)
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
