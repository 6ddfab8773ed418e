import Foundation
internal import NIOCore
internal import NIOHTTP1
internal import NIOSSL
import Understudy

/// Answers each ``ServerRequest`` with the core's ``StubResponder``: canned answers on the
/// event loop at once, closures, images and forwards on a task; then drives the answer's
/// delivery plan with a ``DeliveryDriver`` writing HTTP/1.1 through an ``HTTP1ResponseWriter``.
///
/// Requests under `/__admin/` go to the ``AdminAPI`` through an ``AdminExchange`` instead (the
/// code HTTP/2 streams use too), never matched against stubs nor journaled. A handler of their
/// own in front of this one would cost every stub request one more hop and one more unwrapping
/// of the request.
///
/// A keep-alive client that repeats its last request, byte for byte, to a fixed canned stub is
/// answered from that stub again without building and matching the request anew: what a stub
/// server mostly sees, and what the benchmark measures.
final class StubRequestHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ServerRequest

    /// The last request answered by a fixed canned stub.
    private struct Repeatable {
        let head: HTTPRequestHead
        let request: StubRequest
        let match: StubRegistry.RepeatableMatch
    }

    private let shared: ServerShared
    private let origin: ConnectionOrigin
    private let responder: StubResponder
    private let wireResponses: WireResponseCache
    private let pacing: PacingClock
    /// The loop's turn's look at changed files, shared by the requests it reads in one turn.
    private let fileChecks: FileCheckTurn
    /// Where a kept connection's responses wait to be flushed at the end of the loop's turn.
    private let flushes: TurnFlushes
    private var repeatable: Repeatable?
    /// When ``repeatable`` is kept: a client that never repeats would pay for keeping and
    /// comparing one every time.
    private var backoff = RepeatBackoff()
    /// How many answers came from a fixed canned stub (each sets ``repeatable``): a counter, by
    /// which ``RepeatedRequestShortcut`` tells whether the request it passed on was one.
    private(set) var repeatableAnswerCount = 0
    private var writer: HTTP1ResponseWriter?
    private var driver: DeliveryDriver?
    private let admin: AdminAPI
    /// Admin answers' writer: their bodies are in memory, never sent from a file.
    private var adminWriter: HTTP1ResponseWriter?
    private var exchange: AdminExchange?
    private var context: ChannelHandlerContext?

    init(shared: ServerShared, origin: ConnectionOrigin, resources: ServerShared.LoopResources) {
        self.shared = shared
        self.origin = origin
        self.responder = shared.responder
        self.admin = shared.admin
        self.wireResponses = resources.wireResponses
        self.pacing = resources.pacing
        self.fileChecks = resources.fileChecks
        self.flushes = resources.flushes
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        // Files go with sendfile(2) only where nothing between here and the socket transforms
        // the bytes: not under TLS (the TLS listener, an intercepted CONNECT).
        let underTLS = (try? context.pipeline.syncOperations.handler(type: NIOSSLHandler.self)) != nil
        writer = HTTP1ResponseWriter(context: context, sendsFiles: origin.scheme == "http" && !underTLS, flushes: flushes)
        adminWriter = HTTP1ResponseWriter(context: context, sendsFiles: false)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        exchange?.cancel()
        exchange = nil
        // The writers hold the context, which holds this handler.
        writer = nil
        adminWriter = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .refused(let answer, let request, let arrival):
            deliver(answer, request: request, method: request.method, version: .http1_1, keepAlive: false, arrival: arrival, refused: true)
        case .request(let head, let body, let arrival):
            if AdminExchange.isAdmin(head.uri), let adminWriter {
                exchange = AdminExchange.start(head, body: body, admin: admin, writer: adminWriter)
                return
            }
            fileChecks.sharing(on: context.eventLoop) {
                answer(head, body: body, arrival: arrival, context: context)
            }
        }
    }

    private func answer(_ head: HTTPRequestHead, body: ByteBuffer?, arrival: ServerRequest.Arrival, context: ChannelHandlerContext) {
        if let last = repeatable {
            if body == nil, Self.isRepeat(head, of: last.head), let answer = responder.answerAgain(last.match, for: last.request) {
                backoff.repeated()
                return deliver(answer, request: last.request, method: head.method.rawValue, version: head.version, keepAlive: head.isKeepAlive, arrival: arrival)
            }
            backoff.missed()
            repeatable = nil
        }
        let request = StubRequest(head: head, body: body, scheme: origin.scheme, listener: origin.authority)
        if head.method == .CONNECT {
            return connect(head, request: request, arrival: arrival, context: context)
        }
        var repeatableMatch: StubRegistry.RepeatableMatch?
        switch responder.decide(request, keepingRepeat: backoff.keepsNext(), repeatable: &repeatableMatch) {
        case .answer(let answer):
            if let repeatableMatch {
                repeatable = Repeatable(head: head, request: request, match: repeatableMatch)
                repeatableAnswerCount &+= 1
            }
            deliver(answer, request: request, method: head.method.rawValue, version: head.version, keepAlive: head.isKeepAlive, arrival: arrival)
        case .pending(let pending):
            // In the journal (in flight) while the closure, codec or upstream works.
            let id = responder.open(request)
            let responder = self.responder
            let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
            let promise = context.eventLoop.makePromise(of: StubAnswer.self)
            promise.completeWithTask { await responder.answer(pending) }
            promise.futureResult.whenSuccess { answer in
                guard handler.value.context != nil else {
                    // The connection went away while the stub was thinking.
                    responder.close(id, request: request, startTime: arrival.start, answer: answer,
                                    report: DeliveryReport(headSent: false, bodyBytesSent: 0, ending: .cancelled))
                    return
                }
                handler.value.deliver(answer, request: request, method: head.method.rawValue, version: head.version,
                                      keepAlive: head.isKeepAlive, arrival: arrival, journalID: id)
            }
        }
    }

    /// The head of the last request answered by a fixed canned stub.
    var repeatableHead: HTTPRequestHead? { repeatable?.head }

    /// Answers a request whose bytes repeat those of ``repeatableHead``'s request, as
    /// ``RepeatedRequestShortcut`` found, with the same stub; `false` when the stubs changed
    /// since and it must go the usual way. `connection` is told first that a request is answered.
    func answerRepeat(connection: HTTP1ConnectionHandler, now: NIODeadline) -> Bool {
        guard let last = repeatable, let context,
              let answer = fileChecks.sharing(on: context.eventLoop, { responder.answerAgain(last.match, for: last.request) })
        else { return false }
        backoff.repeated()
        connection.beginRepeatedRequest()
        let arrival = ServerRequest.Arrival(start: Date(), headTime: now, endTime: now)
        deliver(answer, request: last.request, method: last.head.method.rawValue, version: last.head.version, keepAlive: last.head.isKeepAlive, arrival: arrival)
        return true
    }

    /// `CONNECT host:port`: intercepted (TLS as the host, the stubs answer inside), spliced to
    /// the real host, or refused, as ``ConnectProxy/route(forHost:configuration:canIntercept:)`` says.
    private func connect(_ head: HTTPRequestHead, request: StubRequest, arrival: ServerRequest.Arrival, context: ChannelHandlerContext) {
        let method = head.method.rawValue
        guard let (host, port) = ConnectProxy.target(head.uri) else {
            let answer = StubAnswer.refused(status: 400, "bad request: CONNECT needs a host:port target, not '\(head.uri)'")
            return deliver(answer, request: request, method: method, version: head.version, keepAlive: false, arrival: arrival)
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
            deliver(.refused(status: shared.tls == nil ? 501 : 403, reason), request: tunnelRequest, method: method, version: head.version, keepAlive: false, arrival: arrival)
        case .intercept:
            let provider: TLSContextProvider
            do {
                provider = try shared.tls!.get().provider
            } catch {
                let answer = StubAnswer.refused(status: 502, "CONNECT \(authority) cannot be intercepted: \(error)")
                return deliver(answer, request: tunnelRequest, method: method, version: head.version, keepAlive: false, arrival: arrival)
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

    /// Whether `head` asks exactly what `last` did: same method, target, version and header
    /// lines in the same order, so the request built from it would be the same.
    private static func isRepeat(_ head: HTTPRequestHead, of last: HTTPRequestHead) -> Bool {
        guard head.method == last.method, head.uri == last.uri, head.version == last.version,
              head.headers.count == last.headers.count
        else { return false }
        return zip(head.headers, last.headers).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }

    private func deliver(
        _ answer: StubAnswer, request: StubRequest, method: String, version: HTTPVersion, keepAlive: Bool,
        arrival: ServerRequest.Arrival, journalID: Int? = nil, refused: Bool = false
    ) {
        guard let context, let writer else { return }
        var answer = answer
        let wire: WireResponse
        do {
            wire = try wireResponses.response(for: answer.response, allocator: context.channel.allocator)
        } catch {
            let message = "stub \"\(answer.response.stubName ?? "")\" cannot be sent: \(error.message)"
            answer = StubAnswer(response: .text(status: 500, message + "\n"), kind: .failed(message))
            wire = try! WireResponse(answer.response, allocator: context.channel.allocator)
        }
        writer.prepare(wire, version: version, keepAlive: keepAlive && !refused, closing: answer.response.truncateAfter != nil || refused, lingering: refused)
        let driver = DeliveryDriver(
            answer: answer, request: request, method: method, arrival: arrival, journalID: journalID, responder: responder, writer: writer,
            pacing: pacing
        )
        self.driver = driver
        driver.run()
    }

    func channelInactive(context: ChannelHandlerContext) {
        driver?.cancel()
        driver = nil
        exchange?.cancel()
        exchange = nil
        context.fireChannelInactive()
    }
}
