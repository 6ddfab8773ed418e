import Foundation
internal import NIOHTTP2
import Understudy

/// What a fault does on HTTP/2, socket-free: most act on their own stream
/// and leave the connection's other streams alone; `random-data-then-close` and `goaway` act
/// on the connection.
enum HTTP2FaultAction: Equatable {
    /// RST_STREAM with this code, before any HEADERS.
    case reset(HTTP2ErrorCode)
    /// HEADERS declaring `content-length: declared`, then DATA of `body` (longer) with
    /// END_STREAM: the client finds a content-length violation, a stream PROTOCOL_ERROR.
    case overlongBody(declared: Int, body: Data)
    /// Nothing: the stream stays open until the client resets it or leaves.
    case hold
    /// These bytes below HTTP/2's framing, then close the connection.
    case garbleConnection(Data)
    /// This stream's answer, GOAWAY for the streams in flight, and a close once they are done.
    case goAway
}

extension Fault {
    /// The HTTP/2 form of this fault.
    /// - Parameter randomBytes: the garbage `random-data-then-close` sends (injected for tests).
    func http2Action(randomBytes: Data = Fault.randomGarbage()) -> HTTP2FaultAction {
        switch self {
        case .connectionReset, .urlError:
            return .reset(.internalError)
        case .emptyResponse:
            // Closed before a word, without blame: NO_ERROR. Clients report a stream that ended
            // before its response head (curl: "closed cleanly, but before getting all response
            // header fields").
            return .reset(.noError)
        case .malformedChunk:
            let body = Data("this is not the 16 bytes the head declared\n".utf8)
            return .overlongBody(declared: 16, body: body)
        case .randomDataThenClose:
            return .garbleConnection(randomBytes)
        case .noResponse:
            return .hold
        case .goaway:
            return .goAway
        case .disconnectAfterRequest, .disconnectDuringRequestBody, .disconnectDuringResponseBody, .resetDuringResponseBody,
             .shutdownInputAtEnd, .shutdownOutputAtEnd, .slowClose, .timeout, .limitData:
            // Phase faults are steps of the delivery plan (`drop`, `endConnection`, `limitData`,
            // see HTTP2ResponseWriter), never a fault in place of the answer; were one asked
            // for, the nearest is the reset a broken exchange gets.
            return .reset(.internalError)
        }
    }
}
