internal import NIOCore

/// The front of a plain-port connection while HTTP/2 is on: it reads the first bytes, sets the
/// connection up for HTTP/2 when they are HTTP/2's connection preface (h2c with prior
/// knowledge) and for HTTP/1.1 otherwise, passes the bytes on and leaves
/// the pipeline, so a keep-alive HTTP/1.1 connection pays for it on its first read only.
///
/// A connection that sends nothing within the head timeout is closed, as an idle HTTP/1.1
/// connection would be.
final class HTTPVersionSniffer: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// What a connection speaks.
    enum Version: Equatable {
        case http1, http2
    }

    /// `PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n`, the first bytes of every HTTP/2 connection.
    static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    /// What the first `bytes` of a connection say it speaks; `nil` while they are a proper
    /// prefix of the preface and more are needed to tell.
    static func version(of bytes: some Collection<UInt8>) -> Version? {
        for (byte, expected) in zip(bytes, preface) where byte != expected {
            return .http1
        }
        return bytes.count >= preface.count ? .http2 : nil
    }

    private let timeout: TimeAmount
    private let configure: (Version, any Channel) throws -> Void
    private var buffered: ByteBuffer?
    private var timer: LoopAlarm?
    private let clock: LoopClock

    /// - Parameters:
    ///   - timeout: how long the first bytes may take.
    ///   - clock: the connection's loop's clock, where the timeout waits.
    ///   - configure: adds the handlers for the version found, behind this one.
    init(timeout: TimeAmount, clock: LoopClock, configure: @escaping (Version, any Channel) throws -> Void) {
        self.timeout = timeout
        self.clock = clock
        self.configure = configure
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { startTimer(context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        startTimer(context)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        if buffered == nil {
            buffered = bytes
        } else {
            buffered!.writeBuffer(&bytes)
        }
        guard let version = Self.version(of: buffered!.readableBytesView) else { return }
        timer?.cancel()
        timer = nil
        do {
            try configure(version, context.channel)
        } catch {
            context.close(promise: nil)
            return
        }
        let first = buffered!
        buffered = nil
        context.fireChannelRead(wrapInboundOut(first))
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    private func startTimer(_ context: ChannelHandlerContext) {
        guard timer == nil else { return }
        let channel = context.channel
        timer = clock.alarm(in: timeout) { channel.close(promise: nil) }
    }
}
