import Foundation
internal import NIOCore
internal import NIOHTTP1
import Understudy

/// Writes one connection's responses as HTTP/1.1 bytes: the head and body a ``WireResponse``
/// framed (the body from its file with `sendfile(2)` when it has one), faults as raw bytes and
/// closes. One per connection, pointed at each response in turn with ``prepare(_:version:keepAlive:lingering:)``.
final class HTTP1ResponseWriter: ResponseWriter {
    /// The connection handler's context, where bytes are written and flushed.
    private let context: ChannelHandlerContext
    private var wire: WireResponse?
    private var version = HTTPVersion.http1_1
    private var keepAlive = true
    private var closing = false
    private var lingering = false
    /// The head, not written yet: if the whole body follows at once, both go as the response's
    /// one joined buffer (``WireResponse/keepAliveResponse``); before a body from a file, it goes
    /// with the bytes sent from memory, if any.
    private var headHeld = false
    /// Whether this response's body went as a file region that starts on a page boundary, with
    /// no bytes from memory before it, so that its head may go corked with it (``SocketCork``).
    private var corkable = false

    /// Whether a body may go from its file with `sendfile(2)`: on a plain socket only. A TLS
    /// handler takes bytes to encrypt, and fails on a file region (sending a large file body
    /// over HTTPS stopped the server).
    private let sendsFiles: Bool
    /// Where the last flush of a response on a kept connection waits for the end of the
    /// loop's turn (``TurnFlushes``).
    private let flushes: TurnFlushes?
    /// Where a lingering close waits.
    private let clock: LoopClock
    /// The socket's cork, made when first needed (never over TLS).
    private lazy var cork = SocketCork(context.channel)
    /// Told when a response has been written in full and the connection stays open.
    private let ended: () -> Void
    /// The connection's `limit-data`, once an answer set it.
    private var dataLimit: DataLimitHandler?

    /// - Parameters:
    ///   - context: the handler's context, where responses are written.
    ///   - sendsFiles: whether the bytes go straight to a socket (not through TLS).
    ///   - clock: the loop's clock, where a lingering close waits.
    ///   - flushes: where a keep-alive response's last flush waits for the end of the loop's
    ///     turn, or `nil` to flush at once.
    ///   - ended: told when a response has been written in full and the connection stays open:
    ///     the next request may go.
    init(context: ChannelHandlerContext, sendsFiles: Bool, clock: LoopClock, flushes: TurnFlushes? = nil, ended: @escaping () -> Void) {
        self.context = context
        self.clock = clock
        self.flushes = flushes
        self.ended = ended
        self.sendsFiles = sendsFiles
    }

    var eventLoop: any EventLoop { context.eventLoop }

    /// Points the writer at the next response.
    /// - Parameters:
    ///   - wire: the response, framed.
    ///   - version: the request's HTTP version, echoed in the status line.
    ///   - keepAlive: whether the client asked to keep the connection.
    ///   - closing: whether the connection closes after this response whatever the client asked.
    ///   - lingering: whether closing drops the client's further bytes for a while first (after
    ///     a refusal, whose request may still be arriving).
    func prepare(_ wire: WireResponse, version: HTTPVersion, keepAlive: Bool, closing: Bool, lingering: Bool) {
        self.wire = wire
        self.version = version
        self.keepAlive = keepAlive
        self.closing = closing
        self.lingering = lingering
        headHeld = false
        corkable = false
    }

    func writeHead() {
        guard let wire else { return }
        if wire.keepAliveResponse != nil, !lingering, wire.sendsKeepAliveHead(version: version, keepAlive: keepAlive, closing: closing) {
            headHeld = true
            return
        }
        if sendsFiles, wire.file != nil {
            headHeld = true
            return
        }
        let head = wire.head(version: version, keepAlive: keepAlive, closing: closing, allocator: context.channel.allocator)
        context.write(NIOAny(IOData.byteBuffer(head)), promise: nil)
    }

    /// Writes a held head on its own, before anything else goes.
    private func releaseHead() {
        guard headHeld, let wire else { return }
        headHeld = false
        let head = wire.head(version: version, keepAlive: keepAlive, closing: closing, allocator: context.channel.allocator)
        context.write(NIOAny(IOData.byteBuffer(head)), promise: nil)
    }

    func writeBody(_ range: Range<Int>) {
        guard let wire else { return }
        if headHeld, let joined = wire.keepAliveResponse, range == 0..<wire.body.readableBytes {
            headHeld = false
            return context.write(NIOAny(IOData.byteBuffer(joined)), promise: nil)
        }
        if sendsFiles, let file = wire.file {
            // The head shares a segment with body bytes either way: a region starting on a page
            // boundary goes corked with it (``SocketCork``); one starting inside a page sends its
            // bytes up to the next boundary from memory, in one buffer with the head, and the
            // rest from the file uncorked, as corking such a region costs more than it saves.
            // A later piece of a paced body has no head to join and goes whole from the file.
            var start = range.lowerBound
            var split = false
            let boundary = SocketCork.pageBoundary(atOrAfter: wire.fileOffset + start) - wire.fileOffset
            if headHeld, boundary > start, boundary < range.upperBound {
                writeAfterHeldHead(wire.body.getSlice(at: wire.body.readerIndex + start, length: boundary - start)!)
                start = boundary
                split = true
            } else {
                releaseHead()
            }
            let region = FileRegion(
                fileHandle: file.handle, readerIndex: wire.fileOffset + start, endIndex: wire.fileOffset + range.upperBound
            )
            corkable = !split && SocketCork.worthCorking(fileOffset: region.readerIndex)
            // The file stays open until the write is done or failed, whatever the cache and the
            // next response do meanwhile.
            let written = context.eventLoop.makePromise(of: Void.self)
            file.keepOpen(until: written.futureResult)
            context.write(NIOAny(IOData.fileRegion(region)), promise: written)
        } else {
            releaseHead()
            let slice = wire.body.getSlice(at: wire.body.readerIndex + range.lowerBound, length: range.count)!
            context.write(NIOAny(IOData.byteBuffer(slice)), promise: nil)
        }
    }

    /// Writes `bytes` in one buffer with the held head before them, or alone if none is held.
    private func writeAfterHeldHead(_ bytes: ByteBuffer) {
        guard headHeld, let wire else { return context.write(NIOAny(IOData.byteBuffer(bytes)), promise: nil) }
        headHeld = false
        let head = wire.head(version: version, keepAlive: keepAlive, closing: closing, allocator: context.channel.allocator)
        var joined = context.channel.allocator.buffer(capacity: head.readableBytes + bytes.readableBytes)
        joined.writeImmutableBuffer(head)
        joined.writeImmutableBuffer(bytes)
        context.write(NIOAny(IOData.byteBuffer(joined)), promise: nil)
    }

    func flush() {
        releaseHead()
        context.flush()
    }

    func end(close: Bool) {
        releaseHead()
        let channel = context.channel
        if lingering {
            // Close our side first and drop what comes for up to two seconds, so that closing
            // does not send an RST that could destroy the answer before the client reads it.
            flushThen { channel.close(mode: .output, promise: nil) }
            clock.alarm(in: .seconds(2)) { channel.close(promise: nil) }
        } else if close || closing || !keepAlive {
            flushThen { channel.close(promise: nil) }
        } else {
            if let flushes {
                // What the response wrote since its last flush (all of it, unless delivered in
                // pieces) waits for this one: corked, the head shares a segment with the file's
                // first bytes.
                flushes.flushAtTurnEnd(context, uncorking: corkable && cork.cork() ? cork : nil)
            } else {
                context.flush()
            }
            ended()
        }
    }

    func abort() {
        releaseHead()
        context.flush()
        context.close(promise: nil)
    }

    func perform(_ fault: Fault) -> Bool {
        releaseHead()
        var held = false
        for action in fault.wireActions(stubName: wire?.stubName) {
            switch action {
            case .writeRaw(let bytes):
                context.writeAndFlush(NIOAny(IOData.byteBuffer(context.channel.allocator.buffer(bytes: bytes))), promise: nil)
            case .close(let reset):
                close(reset: reset)
            case .hold:
                held = true
            case .writeResponseClosing:
                closing = true
                writeHead()
                // A fault stub's body is empty; anything else is sent whole.
                if let wire, wire.body.readableBytes > 0 { writeBody(0..<wire.body.readableBytes) }
                context.flush()
            }
        }
        return held
    }

    func writeInformational(_ head: InformationalHead) {
        // An HTTP/1.0 client knows no 1xx heads: it gets none.
        guard version != .http1_0 else { return }
        let phrase = head.status == 103 ? "Early Hints" : HTTPResponseStatus(statusCode: head.status).reasonPhrase
        var text = "HTTP/1.1 \(head.status) \(phrase)\r\n"
        for field in head.headers.fields { text += "\(field.name): \(field.value)\r\n" }
        text += "\r\n"
        // Out at once: an early hint is worth something only before the final head.
        context.writeAndFlush(NIOAny(IOData.byteBuffer(context.channel.allocator.buffer(string: text))), promise: nil)
    }

    /// Tells a client that asked `Expect: 100-continue` to send its body.
    func writeContinue() {
        context.writeAndFlush(NIOAny(IOData.byteBuffer(context.channel.allocator.buffer(staticString: "HTTP/1.1 100 Continue\r\n\r\n"))), promise: nil)
    }

    func announceClose() {
        closing = true
    }

    func drop(reset: Bool) {
        releaseHead()
        context.flush()
        close(reset: reset)
    }

    func endConnection(_ ending: ConnectionEnding) {
        releaseHead()
        let channel = context.channel
        switch ending {
        case .shutdownInput:
            // The answer stands and the connection stays open, but nothing more is read: the
            // connection reads its next request once told this answer ended, which it never is.
            // (A shutdown of the socket's input would end the connection: its handler takes the
            // end of input for the client leaving.)
            context.flush()
        case .shutdownOutput:
            flushThen { channel.close(mode: .output, promise: nil) }
        case .slowClose(let delay):
            context.flush()
            clock.alarm(in: .nanoseconds(delay.nanoseconds)) { channel.close(promise: nil) }
        }
    }

    func limitData(_ bytes: Int) {
        let pipeline = context.pipeline.syncOperations
        // One limit per connection, counted across its answers: the first set stays.
        guard dataLimit == nil else { return }
        let handler = DataLimitHandler(limit: bytes)
        do {
            try pipeline.addHandler(handler, position: .first)
            dataLimit = handler
        } catch {
            context.close(promise: nil)
        }
    }

    var dataLimitReached: DataLimitHandler.Limit? {
        dataLimit.flatMap { $0.isSpent ? $0.limit : nil }
    }

    /// A head held back to go with the body (``writeHead()``) is written by ``end(close:)``
    /// when there is no body to join, so a limit may cut it there.
    var hasDataLimit: Bool { dataLimit != nil }

    /// Closes the connection; with `reset`, abortively, so the peer meets a TCP RST.
    private func close(reset: Bool) {
        let channel = context.channel
        if reset, let provider = channel as? any SocketOptionProvider {
            // SO_LINGER with a zero timeout makes close() send a RST instead of a FIN.
            provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { _ in channel.close(promise: nil) }
        } else {
            context.close(promise: nil)
        }
    }

    /// Flushes, then runs `body` once everything written so far has left.
    private func flushThen(_ body: @escaping @Sendable () -> Void) {
        context.writeAndFlush(NIOAny(IOData.byteBuffer(context.channel.allocator.buffer(capacity: 0)))).whenComplete { _ in body() }
    }
}

extension HTTP1ResponseWriter: AdminResponseWriter {
    func prepare(admin wire: WireResponse, status: Int, headers: HeaderFields, for head: RequestHead, streamed: Bool) {
        // A stream has no length: the connection's end is the body's.
        prepare(wire, version: HTTPVersion(head.version), keepAlive: head.keepAlive, closing: streamed, lingering: false)
    }

    func writeChunk(_ chunk: ByteBuffer) -> EventLoopFuture<Void> {
        context.writeAndFlush(NIOAny(IOData.byteBuffer(chunk)))
    }
}

extension HTTPVersion {
    /// The HTTP/1 version `version` is, for a status line.
    init(_ version: RequestHead.Version) {
        self = version == .http1_0 ? .http1_0 : .http1_1
    }
}
