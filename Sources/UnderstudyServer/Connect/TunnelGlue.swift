internal import NIOCore

/// One side of a spliced `CONNECT` tunnel: what one channel reads, its partner writes, byte for
/// byte, with reading paused while the partner cannot take more (NIO's connect-proxy glue).
/// The pair counts the bytes each way and reports once both sides are closed.
final class TunnelGlue: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var partner: TunnelGlue?
    private var context: ChannelHandlerContext?
    private var pendingRead = false
    /// Bytes this side read (and handed to its partner).
    private(set) var bytesRead = 0

    private init() {}

    /// A glued pair: what the first side reads, the second writes, and the other way round.
    static func pair() -> (TunnelGlue, TunnelGlue) {
        let first = TunnelGlue(), second = TunnelGlue()
        first.partner = second
        second.partner = first
        return (first, second)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        partner = nil
    }

    private func partnerWrite(_ data: ByteBuffer) {
        context?.write(wrapOutboundOut(data), promise: nil)
    }

    private func partnerFlush() {
        context?.flush()
    }

    private func partnerCloseFull() {
        context?.close(promise: nil)
    }

    private func partnerBecameWritable() {
        if pendingRead {
            pendingRead = false
            context?.read()
        }
    }

    private var partnerWritable: Bool {
        context?.channel.isWritable ?? false
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = unwrapInboundIn(data)
        bytesRead += bytes.readableBytes
        partner?.partnerWrite(bytes)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        partner?.partnerFlush()
    }

    func channelInactive(context: ChannelHandlerContext) {
        partner?.partnerCloseFull()
        context.fireChannelInactive()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            partner?.partnerBecameWritable()
        }
        context.fireChannelWritabilityChanged()
    }

    func read(context: ChannelHandlerContext) {
        if let partner, partner.partnerWritable {
            context.read()
        } else {
            pendingRead = true
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
