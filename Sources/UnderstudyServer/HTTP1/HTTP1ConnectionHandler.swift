import Foundation
internal import NIOCore
internal import NIOHTTP1
import Understudy

/// An HTTP/1.1 connection's last handler, behind NIOHTTP1's request decoder: it feeds the reads
/// (as ``ReadTap`` tells of them), what the decoder makes of them, and the ends of answers, to
/// the connection's ``HTTP1RequestReader``, and does
/// what the reader says: passes a request to its ``HTTP1Answerer``, refuses one, reads, sets
/// the timer, closes. Which request goes when, and why one is refused, is the reader's.
final class HTTP1ConnectionHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    private let settings: HTTP1Settings
    private let connection: HTTP1Connection
    private let answerer: HTTP1Answerer
    private var reader: HTTP1RequestReader
    private var context: ChannelHandlerContext?
    private var timer: LoopAlarm?

    init(settings: HTTP1Settings, connection: HTTP1Connection, answerer: HTTP1Answerer) {
        self.settings = settings
        self.connection = connection
        self.answerer = answerer
        // The exchange outlives neither the connection nor this handler.
        self.reader = HTTP1RequestReader(settings: settings) { [exchange = connection.exchange, connection] head in
            exchange.bodyArriving(head, to: connection)
        }
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        // Weak: the answerer's writers are this handler's, and live as long.
        answerer.attach(context) { [weak self] in self?.responseEnded() }
        if context.channel.isActive {
            reader.opened(at: context.eventLoop.now)
            perform(context)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        timer?.cancel()
        timer = nil
        answerer.detach()
    }

    func channelActive(context: ChannelHandlerContext) {
        reader.opened(at: context.eventLoop.now)
        perform(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        answerer.clientLeft()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        reader.partRead(unwrapInboundIn(data), at: context.eventLoop.now)
        perform(context)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        reader.readComplete()
        perform(context)
        context.fireChannelReadComplete()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard let arriving = event as? ReadTap.Arriving else {
            return context.fireUserInboundEventTriggered(event)
        }
        reader.readArriving(arriving.bytes)
        perform(context)
    }

    func read(context: ChannelHandlerContext) {
        reader.readRequested()
        perform(context)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError else {
            return context.close(promise: nil)
        }
        reader.parseFailed(parserError, at: context.eventLoop.now)
        perform(context)
    }

    /// The answer to the request passed on has been written in full, and the connection stays open.
    private func responseEnded() {
        guard let context else { return }
        reader.responseEnded(at: context.eventLoop.now)
        perform(context)
    }

    /// Does what the reader asks, in order. An answer that ends at once comes back through
    /// ``responseEnded()`` and does what that asks first, in its turn.
    private func perform(_ context: ChannelHandlerContext) {
        while let action = reader.nextAction() {
            switch action {
            case .answer(let request):
                answerer.answer(request, context: context)
            case .refuse(let answer, let refused):
                refuse(answer, refused, context: context)
            case .setTimer(let deadline):
                timer?.cancel()
                timer = connection.exchange.clock.alarm(at: deadline) { [self] in
                    guard let context = self.context else { return }
                    timer = nil
                    reader.timerFired(at: context.eventLoop.now)
                    perform(context)
                }
            case .cancelTimer:
                timer?.cancel()
                timer = nil
            case .read:
                context.read()
            case .close:
                context.close(promise: nil)
            case .renewParser:
                renewParser(context)
            }
        }
    }

    /// Passes on the refusal of a request, or of the partial head read so far.
    private func refuse(_ answer: StubAnswer, _ refused: HTTP1RequestReader.Refused, context: ChannelHandlerContext) {
        let now = context.eventLoop.now
        let listener = settings.listener()
        let (stubRequest, arrival): (StubRequest, ServerRequest.Arrival)
        switch refused {
        case .request(let request):
            stubRequest = StubRequest(head: request.head, body: nil, scheme: settings.scheme, listener: { listener })
            arrival = request.arrival(endingAt: now)
        case .partialHead(let bytes):
            stubRequest = StubRequest(partialHead: bytes, scheme: settings.scheme, listener: listener)
            arrival = ServerRequest.Arrival(start: Date(), headTime: now, endTime: now)
        }
        answerer.answer(.refused(answer, stubRequest, arrival: arrival), context: context)
    }

    /// Replaces the request decoder that stopped at an `Upgrade` request with a fresh one.
    private func renewParser(_ context: ChannelHandlerContext) {
        let sync = context.pipeline.syncOperations
        guard let old = try? sync.context(handlerType: ByteToMessageHandler<HTTPRequestDecoder>.self) else { return }
        do {
            try sync.addHandler(ServerPipeline.requestDecoder(maxHeaderCount: settings.maxHeaderCount), position: .after(old.handler))
            _ = sync.removeHandler(context: old)
        } catch {
            context.close(promise: nil)
        }
    }
}

/// What ``HTTP1ConnectionHandler`` needs to know of the server.
struct HTTP1Settings: Sendable {
    var maxBodySize: Int
    var maxHeaderCount: Int
    var requestHeadTimeout: TimeAmount
    var bodyTimeout: TimeAmount
    /// The scheme requests are matched on.
    var scheme: String
    /// `host:port` of the listener, for requests that name no host.
    var listener: @Sendable () -> String
}

extension TimeAmount {
    /// `30s`, `250ms`.
    var prettyPrint: String {
        nanoseconds % 1_000_000_000 == 0 ? "\(nanoseconds / 1_000_000_000)s" : "\(nanoseconds / 1_000_000)ms"
    }
}
