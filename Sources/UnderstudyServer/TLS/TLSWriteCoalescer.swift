internal import NIOCore

/// In front of the TLS handler of an HTTP/2 connection: joins the small writes made between two
/// flushes into one, and feeds the TLS handler only as fast as the socket takes its output. An
/// HTTP/1.1 connection has none: its response is one write already (``WireResponse``), and one
/// more handler would cost each of its requests a hop for every read, write and flush.
///
/// - **Joining.** `NIOSSLHandler` makes a TLS record of every write: an HTTP/2 connection
///   answering ten streams at once writes about thirty frames (HEADERS, each DATA frame's
///   header, its payload) before it flushes, and each would be a record of its own, sealed apart
///   and opened apart by the client. Joined, they go as one write and as few records as their
///   size needs, as nginx sends them (its `ssl_buffer_size`). Writes of ``passThroughSize`` or
///   more go as they are, after what was joined before them, so a large body is not copied.
/// - **Pacing.** Encrypting makes a copy of every byte. A client that opens a large window
///   (h2load's is 1 GB) would let a connection encrypt all its streams' bodies at once, a
///   megabyte of ciphertext per connection waiting for the socket. While the channel is not
///   writable, flushed writes wait here as they are (slices of cached bodies, no copies) and
///   go on, a write at a time, when it is writable again.
final class TLSWriteCoalescer: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// Writes this large go on their own.
    static let passThroughSize = 16 * 1024

    private struct Write {
        let buffer: ByteBuffer
        let promise: EventLoopPromise<Void>?
    }

    /// Small writes being joined, not yet flushed.
    private var joining: ByteBuffer?
    private var joiningPromises: [EventLoopPromise<Void>] = []
    /// Writes in order, not yet passed on.
    private var queued = CircularBuffer<Write>()
    /// How many of ``queued`` a flush has released.
    private var flushedCount = 0

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        var buffer = unwrapOutboundIn(data)
        if buffer.readableBytes >= Self.passThroughSize {
            endJoining(context: context)
            queued.append(Write(buffer: buffer, promise: promise))
            return
        }
        if joining == nil {
            joining = buffer
        } else {
            joining!.writeBuffer(&buffer)
        }
        if let promise { joiningPromises.append(promise) }
        if joining!.readableBytes >= Self.passThroughSize { endJoining(context: context) }
    }

    func flush(context: ChannelHandlerContext) {
        endJoining(context: context)
        flushedCount = queued.count
        passOn(context: context, whileWritable: true)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { passOn(context: context, whileWritable: true) }
        context.fireChannelWritabilityChanged()
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        // What was flushed before a close goes before it, as it would without this handler.
        passOn(context: context, whileWritable: false)
        context.close(mode: mode, promise: promise)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        endJoining(context: context)
        flushedCount = queued.count
        passOn(context: context, whileWritable: false)
    }

    /// The joined writes become one queued write.
    private func endJoining(context: ChannelHandlerContext) {
        guard let buffer = joining else { return }
        joining = nil
        let promise: EventLoopPromise<Void>?
        switch joiningPromises.count {
        case 0: promise = nil
        case 1: promise = joiningPromises[0]
        default:
            let written = context.eventLoop.makePromise(of: Void.self)
            for waiting in joiningPromises { written.futureResult.cascade(to: waiting) }
            promise = written
        }
        joiningPromises.removeAll(keepingCapacity: true)
        queued.append(Write(buffer: buffer, promise: promise))
    }

    /// The most bytes passed on between two flushes while pacing.
    static let flushSize = 64 * 1024

    /// Passes flushed writes on: while the channel is writable, flushing every ``flushSize``
    /// bytes (the TLS handler writes to the channel on a flush, and only then does the channel
    /// say whether it takes more); or, with `whileWritable` false, all of them and one flush.
    private func passOn(context: ChannelHandlerContext, whileWritable: Bool) {
        var unflushed = 0
        while flushedCount > 0, !whileWritable || context.channel.isWritable {
            let next = queued.removeFirst()
            flushedCount -= 1
            unflushed += next.buffer.readableBytes
            context.write(wrapOutboundOut(next.buffer), promise: next.promise)
            if whileWritable, unflushed >= Self.flushSize {
                context.flush()
                unflushed = 0
            }
        }
        context.flush()
    }
}
