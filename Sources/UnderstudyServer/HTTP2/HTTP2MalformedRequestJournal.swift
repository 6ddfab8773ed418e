import Foundation
internal import NIOCore
internal import NIOHTTP2
import Understudy

/// Journals the HTTP/2 requests NIO itself refuses as malformed: trailers without END_STREAM
/// (RFC 9113 section 8.1), a stream error NIO's state machine raises before the frame reaches
/// the stream. NIO resets the stream and reports the error here, behind the HTTP/2 handler: the
/// entry says why, as HTTP/1.1 journals the requests it refuses. Its request is `UNKNOWN /`,
/// since NIO does not say which it was. Header blocks are checked by the server itself
/// (`HTTPRequestHead(http2Request:)`), and refused by the stream. Other errors go on down the
/// pipeline.
final class HTTP2MalformedRequestJournal: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private let responder: StubResponder
    private let scheme: String
    private let listener: @Sendable () -> String

    init(responder: StubResponder, scheme: String, listener: @escaping @Sendable () -> String) {
        self.responder = responder
        self.scheme = scheme
        self.listener = listener
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard error is NIOHTTP2Errors.TrailersWithoutEndStream else {
            return context.fireErrorCaught(error)
        }
        let request = StubRequest(partialHead: ByteBuffer(), scheme: scheme, listener: listener())
        let message = "malformed HTTP/2 request, stream reset with PROTOCOL_ERROR: trailers without END_STREAM (RFC 9113 section 8.1)"
        let report = DeliveryReport(headSent: false, bodyBytesSent: 0, ending: .fault(.connectionReset), httpVersion: .http2)
        responder.close(nil, request: request, startTime: Date(), answer: .refused(status: 400, message, silently: true), report: report)
    }
}
