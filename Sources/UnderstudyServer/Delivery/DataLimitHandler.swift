internal import NIOCore

/// Lets a connection carry a number of bytes in all, then closes it: Toxiproxy's `limit_data`,
/// for ``Understudy/Fault/limitData(_:)``. At the front of the pipeline, so it counts the bytes
/// as they go to the socket (after TLS, when there is TLS), across every answer on the
/// connection, heads included.
///
/// It also counts what was written past the limit, so that the journal records the bytes a
/// client received rather than those it was sent: the write the limit cuts short fails with
/// ``Cut`` once its first part has left, and later writes fail as on a closed channel.
final class DataLimitHandler: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    /// A connection's limit once reached.
    struct Limit: Equatable {
        /// The bytes the connection could carry in all.
        let bytes: Int
        /// Bytes written to the connection that never left, because they came past the limit:
        /// the last ones written, so an answer's body lost at most this many of its own last bytes.
        let unsent: Int
    }

    /// The error of the write the limit cut short: its first part left, its last `unsent`
    /// bytes did not.
    struct Cut: Error {
        let unsent: Int
    }

    /// The bytes the connection may carry in all.
    let bytes: Int
    private var remaining: Int
    private var spent = false
    private var unsent = 0

    /// Whether the limit was reached and the connection closed.
    var isSpent: Bool { spent }

    /// The limit, with the bytes written past it so far.
    var limit: Limit { Limit(bytes: bytes, unsent: unsent) }

    init(limit: Int) {
        bytes = max(0, limit)
        remaining = bytes
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let data = unwrapOutboundIn(data)
        let size = data.readableBytes
        guard !spent else {
            unsent += size
            promise?.fail(ChannelError.ioOnClosedChannel)
            return
        }
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
        let lost = size - remaining
        unsent += lost
        remaining = 0
        // The writer's promise completes once the part that goes has left (a file region's file
        // must stay open until then), before the close below tells the connection it ended.
        let written = context.eventLoop.makePromise(of: Void.self)
        if let promise {
            written.futureResult.whenComplete { result in
                switch result {
                case .success: promise.fail(Cut(unsent: lost))
                case .failure(let error): promise.fail(error)
                }
            }
        }
        context.write(wrapOutboundOut(cut), promise: written)
        context.flush()
        context.close(promise: nil)
    }
}
