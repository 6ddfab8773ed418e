import Foundation
internal import NIOCore
internal import NIOHTTP2
import Understudy

/// Journals the HTTP/2 requests whose header block NIO refuses (RFC 9113 section 8: an
/// uppercase or connection-specific field, a missing or unknown pseudo-header). NIO resets
/// such a stream itself, before any stream pipeline exists, and reports the error here, behind
/// the HTTP/2 handler: the entry says why, as HTTP/1.1 journals the requests it refuses. Its
/// request is `UNKNOWN /`, since the block that would have named it was refused. Other errors
/// go on down the pipeline.
final class HTTP2MalformedRequestJournal: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    /// The errors NIO's header validation reports as stream errors.
    private static let headerBlockErrors: [any Error.Type] = [
        NIOHTTP2Errors.MissingPseudoHeader.self, NIOHTTP2Errors.DuplicatePseudoHeader.self,
        NIOHTTP2Errors.PseudoHeaderAfterRegularHeader.self, NIOHTTP2Errors.UnknownPseudoHeader.self,
        NIOHTTP2Errors.UnsupportedPseudoHeader.self, NIOHTTP2Errors.InvalidPseudoHeaders.self,
        NIOHTTP2Errors.MissingHostHeader.self, NIOHTTP2Errors.DuplicateHostHeader.self,
        NIOHTTP2Errors.EmptyPathHeader.self, NIOHTTP2Errors.TrailersWithoutEndStream.self,
        NIOHTTP2Errors.InvalidHTTP2HeaderFieldName.self, NIOHTTP2Errors.InvalidHTTP2HeaderFieldValue.self,
        NIOHTTP2Errors.ForbiddenHeaderField.self, NIOHTTP2Errors.InvalidPseudoHeaderValue.self,
    ]

    private let responder: StubResponder
    private let scheme: String
    private let listener: @Sendable () -> String

    init(responder: StubResponder, scheme: String, listener: @escaping @Sendable () -> String) {
        self.responder = responder
        self.scheme = scheme
        self.listener = listener
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        let type = ObjectIdentifier(Swift.type(of: error))
        guard Self.headerBlockErrors.contains(where: { ObjectIdentifier($0) == type }) else {
            return context.fireErrorCaught(error)
        }
        let request = StubRequest(partialHead: ByteBuffer(), scheme: scheme, listener: listener())
        let message = "malformed HTTP/2 request, stream reset with PROTOCOL_ERROR: \(Self.reason(error))"
        let report = DeliveryReport(headSent: false, bodyBytesSent: 0, ending: .fault(.connectionReset), httpVersion: "HTTP/2")
        responder.close(nil, request: request, startTime: Date(), answer: .refused(status: 400, message, silently: true), report: report)
    }

    /// What is wrong with the block, in words, for the common cases; NIO's own description else.
    static func reason(_ error: any Error) -> String {
        switch error {
        case let error as NIOHTTP2Errors.InvalidPseudoHeaders:
            let names = error.headerBlock.map(\.name).filter { $0.hasPrefix(":") }
            return "a request needs :method, :scheme and :path, once each (RFC 9113 section 8.3.1); this one had \(names.joined(separator: ", "))"
        case let error as NIOHTTP2Errors.DuplicatePseudoHeader:
            return "pseudo-header \(error.name) appears twice"
        case let error as NIOHTTP2Errors.MissingPseudoHeader:
            return "no \(error.name) pseudo-header"
        case let error as NIOHTTP2Errors.UnknownPseudoHeader:
            return "unknown pseudo-header \(error.name)"
        default:
            return "\(error)"
        }
    }
}
