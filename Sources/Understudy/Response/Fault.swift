import Foundation

/// A network failure a stub injects instead of (or in the middle of) a response.
///
/// In-process, each fault fails the task with the `URLError` code that URLSession reports for
/// the same failure on the wire (see ``urlErrorCode``); the server produces it on the socket.
public enum Fault: Sendable, Hashable, CustomStringConvertible {
    /// The connection is reset (TCP RST). In-process: `URLError(.networkConnectionLost)`.
    case connectionReset
    /// The connection closes before any byte. In-process: `URLError(.badServerResponse)`.
    case emptyResponse
    /// A 200 with chunked framing that breaks. In-process: `URLError(.cannotParseResponse)`.
    case malformedChunk
    /// Garbage instead of HTTP, then close. In-process: `URLError(.cannotParseResponse)`.
    case randomDataThenClose
    /// Nothing is ever sent; the client gives up after its timeout. In-process: the request's
    /// `timeoutInterval` elapses, then `URLError(.timedOut)`.
    case noResponse
    /// In-process only: fail with exactly this code (the server answers it as a reset).
    case urlError(URLError.Code)
    /// The connection ends gracefully after this answer: on HTTP/2 a GOAWAY naming the streams
    /// in flight, which finish, then a close; on HTTP/1.1 the stub's status and headers with
    /// `Connection: close`, then a close. In-process, where there is no connection to lose:
    /// `URLError(.networkConnectionLost)`, what URLSession reports when a connection it was
    /// using goes away.
    case goaway

    /// The fault names stub files use, in the order error messages list them.
    public static let fileNames = ["connection-reset", "empty-response", "malformed-chunk", "random-data-then-close", "no-response", "goaway"]

    /// Parses a stub-file name such as `connection-reset`.
    public init?(fileName: String) {
        switch fileName {
        case "connection-reset": self = .connectionReset
        case "empty-response": self = .emptyResponse
        case "malformed-chunk": self = .malformedChunk
        case "random-data-then-close": self = .randomDataThenClose
        case "no-response": self = .noResponse
        case "goaway": self = .goaway
        default: return nil
        }
    }

    /// The stub-file name, or `url-error(<code>)` for ``urlError(_:)``.
    public var description: String {
        switch self {
        case .connectionReset: return "connection-reset"
        case .emptyResponse: return "empty-response"
        case .malformedChunk: return "malformed-chunk"
        case .randomDataThenClose: return "random-data-then-close"
        case .noResponse: return "no-response"
        case .goaway: return "goaway"
        case .urlError(let code): return "url-error(\(code.rawValue))"
        }
    }

    /// The `URLError` code a URLSession client sees for this fault in-process.
    public var urlErrorCode: URLError.Code {
        switch self {
        case .connectionReset, .goaway: return .networkConnectionLost
        case .emptyResponse: return .badServerResponse
        case .malformedChunk, .randomDataThenClose: return .cannotParseResponse
        case .noResponse: return .timedOut
        case .urlError(let code): return code
        }
    }
}
