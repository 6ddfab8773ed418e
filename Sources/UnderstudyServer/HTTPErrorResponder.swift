import NIOCore
import NIOHTTP1

/// Answers a request NIO's parser rejects: 431 when the head breaks a size or count limit, 400
/// with the parser's reason otherwise. It stands where `HTTPServerProtocolErrorHandler` would,
/// which answers every parse error with a bare 400.
///
/// The connection then closes the way Apache's lingering close does: output first (FIN after
/// the answer), while what the client is still sending is read and dropped for up to two
/// seconds. Closing at once with unread bytes would send an RST, and the client could lose
/// the answer before reading it (a 100 KiB header block is still arriving when 80 KiB is refused).
final class HTTPErrorResponder: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let maxHeaderCount: Int
    private let maxHeaderBytes: Int
    /// A response has begun: a second head cannot follow it on this connection.
    private var responseInProgress = false
    /// Set once the error answer is out: the connection is only waiting to close.
    private var lingering: Scheduled<Void>?

    init(maxHeaderCount: Int, maxHeaderBytes: Int) {
        self.maxHeaderCount = maxHeaderCount
        self.maxHeaderBytes = maxHeaderBytes
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // After the answer, the decoder reports every further read as an error: all dropped.
        if lingering != nil { return }
        guard let parserError = error as? HTTPParserError, !responseInProgress else {
            return context.fireErrorCaught(error)
        }
        let (status, message) = answer(for: parserError)
        let body = context.channel.allocator.buffer(string: message)
        let headers = HTTPHeaders([
            ("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", String(body.readableBytes)),
            ("Connection", "close"),
        ])
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
            channel.close(mode: .output, promise: nil)
        }
        lingering = context.eventLoop.scheduleTask(in: .seconds(2)) {
            channel.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        lingering?.cancel()
        context.fireChannelInactive()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head) where head.status.code >= 200:
            responseInProgress = true
        case .end:
            responseInProgress = false
        case .head, .body:
            break
        }
        context.write(data, promise: promise)
    }

    private func answer(for error: HTTPParserError) -> (HTTPResponseStatus, String) {
        if case .headerOverflow = error {
            return (
                .requestHeaderFieldsTooLarge,
                "request header fields too large: at most \(maxHeaderCount) header fields and \(maxHeaderBytes) bytes of names and values\n"
            )
        }
        return (.badRequest, "bad request: \(error.debugDescription)\n")
    }
}
