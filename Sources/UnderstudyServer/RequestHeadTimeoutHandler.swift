import NIOCore
import NIOHTTP1

/// Closes a connection that has not delivered a complete request head within the timeout,
/// counted from when it opened or its previous response ended: a slowloris trickle or an
/// abandoned keep-alive connection cannot hold a socket forever. Once a head is in, the stub's
/// own timing (delays, bandwidth, `no-response`) is left alone.
///
/// Cheap on the hot path: a request only notes the time; one timer per connection runs at most
/// once per timeout period and, when it finds the connection busy or recently idle, waits again.
final class RequestHeadTimeoutHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let timeout: TimeAmount
    /// When the connection began waiting for a head; `nil` while a request is in flight.
    private var awaitingHeadSince: NIODeadline?
    private var timer: Scheduled<Void>?

    init(timeout: Duration) {
        self.timeout = .nanoseconds(timeout.nanoseconds)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { awaitHead(context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        awaitHead(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) { awaitingHeadSince = nil }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        // Noted before passing the end on: the pipelining handler may hand over the next
        // buffered head during this very write, and that head must find the note to clear.
        if case .end = unwrapOutboundIn(data) { awaitHead(context) }
        context.write(data, promise: promise)
    }

    private func awaitHead(_ context: ChannelHandlerContext) {
        let now = context.eventLoop.now
        awaitingHeadSince = now
        if timer == nil { schedule(at: now + timeout, context: context) }
    }

    private func schedule(at deadline: NIODeadline, context: ChannelHandlerContext) {
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        let channel = context.channel
        let eventLoop = context.eventLoop
        timer = eventLoop.scheduleTask(deadline: deadline) {
            handler.value.timerFired(channel: channel, eventLoop: eventLoop)
        }
    }

    private func timerFired(channel: any Channel, eventLoop: any EventLoop) {
        timer = nil
        // Busy with a request: the next response's end starts the count again.
        guard let since = awaitingHeadSince else { return }
        if eventLoop.now - since >= timeout {
            channel.close(promise: nil)
        } else {
            let handler = NIOLoopBound(self, eventLoop: eventLoop)
            timer = eventLoop.scheduleTask(deadline: since + timeout) {
                handler.value.timerFired(channel: channel, eventLoop: eventLoop)
            }
        }
    }
}
