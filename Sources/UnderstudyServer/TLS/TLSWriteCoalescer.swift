internal import NIOCore

/// Joins the small writes made between two flushes into one, in front of the TLS handler.
///
/// `NIOSSLHandler` makes a TLS record of every write: an HTTP/2 connection answering ten
/// streams at once writes about thirty frames (HEADERS, each DATA frame's header, its payload)
/// before it flushes, and each became a record of its own, sealed apart and opened apart by the
/// client. Joined, they go as one write and as few records as their size needs, as nginx sends
/// them (its `ssl_buffer_size`). Writes of ``passThroughSize`` or more go as they are, after
/// what was joined before them, so a large body is not copied.
final class TLSWriteCoalescer: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// Writes this large go on their own.
    static let passThroughSize = 16 * 1024

    private var pending: ByteBuffer?
    private var promises: [EventLoopPromise<Void>] = []

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        var buffer = unwrapOutboundIn(data)
        if buffer.readableBytes >= Self.passThroughSize {
            writePending(context: context)
            return context.write(data, promise: promise)
        }
        if pending == nil {
            pending = buffer
        } else {
            pending!.writeBuffer(&buffer)
        }
        if let promise { promises.append(promise) }
        if pending!.readableBytes >= Self.passThroughSize { writePending(context: context) }
    }

    func flush(context: ChannelHandlerContext) {
        writePending(context: context)
        context.flush()
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        // What was written before a close goes before it, as it would without this handler.
        writePending(context: context)
        context.close(mode: mode, promise: promise)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        writePending(context: context)
    }

    private func writePending(context: ChannelHandlerContext) {
        guard let buffer = pending else { return }
        pending = nil
        let waiting = promises
        promises.removeAll(keepingCapacity: true)
        switch waiting.count {
        case 0:
            context.write(wrapOutboundOut(buffer), promise: nil)
        case 1:
            context.write(wrapOutboundOut(buffer), promise: waiting[0])
        default:
            let written = context.eventLoop.makePromise(of: Void.self)
            for promise in waiting { written.futureResult.cascade(to: promise) }
            context.write(wrapOutboundOut(buffer), promise: written)
        }
    }
}
