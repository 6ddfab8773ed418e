internal import NIOCore

/// Lets a connection carry a number of bytes in all, then closes it: Toxiproxy's `limit_data`,
/// for ``Understudy/Fault/limitData(_:)``. At the front of the pipeline, so it counts the bytes
/// as they go to the socket (after TLS, when there is TLS), across every answer on the
/// connection, heads included.
final class DataLimitHandler: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    /// The bytes the connection may carry in all.
    let limit: Int
    private var remaining: Int
    private var spent = false

    /// Whether the limit was reached and the connection closed.
    var isSpent: Bool { spent }

    init(limit: Int) {
        self.limit = max(0, limit)
        remaining = self.limit
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard !spent else {
            promise?.fail(ChannelError.ioOnClosedChannel)
            return
        }
        let data = unwrapOutboundIn(data)
        let size = data.readableBytes
        if size < remaining {
            remaining -= size
            return context.write(wrapOutboundOut(data), promise: promise)
        }
        spent = true
        let cut: IOData
        switch data {
        case .byteBuffer(let buffer):
            cut = .byteBuffer(buffer.getSlice(at: buffer.readerIndex, length: remaining)!)
        case .fileRegion(let region):
            cut = .fileRegion(FileRegion(fileHandle: region.fileHandle, readerIndex: region.readerIndex, endIndex: region.readerIndex + remaining))
        }
        remaining = 0
        context.write(wrapOutboundOut(cut), promise: promise)
        context.flush()
        context.close(promise: nil)
    }
}
