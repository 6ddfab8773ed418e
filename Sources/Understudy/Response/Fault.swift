import Foundation

/// A network failure a stub injects instead of (or in the middle of) a response.
///
/// The first kinds replace the answer; the phase faults (``disconnectAfterRequest`` and those
/// after it) strike at one phase of the exchange and keep the stub's own status, headers and
/// body up to that point. Each is a step of the response's delivery plan, which every transport
/// carries out alike. In-process, a fault fails the task with the `URLError` code a URLSession
/// client gets for the same failure on the wire (see ``urlErrorCode``); the server produces it
/// on the socket.
///
/// ```swift
/// .file(photo).faulted(.resetDuringResponseBody(after: 1024))
/// .file(photo).faulted(.disconnectAfterRequest, chance: 0.3)
/// ```
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
    /// The request is read whole, then the connection closes without a byte of answer (on
    /// HTTP/2 the stream is reset). In-process: `URLError(.badServerResponse)`.
    case disconnectAfterRequest
    /// A request whose body is longer than `after` bytes gets a TCP reset instead of an answer,
    /// as from a server that stops reading mid-body; one whose body is `after` bytes or fewer is
    /// answered as usual. The server reads a body before it matches a stub, so the reset comes
    /// once the body is in. In-process: `URLError(.networkConnectionLost)`.
    case disconnectDuringRequestBody(after: Int)
    /// The stub's status and headers and `after` bytes of its body, then a close (on HTTP/2
    /// the stream is reset). In-process, as URLSession reports it on the wire:
    /// `URLError(.unknown)` on Linux, `URLError(.networkConnectionLost)` on Apple platforms.
    case disconnectDuringResponseBody(after: Int)
    /// The stub's status and headers and `after` bytes of its body, then a TCP reset
    /// (Toxiproxy's `reset_peer`; on HTTP/2 an RST_STREAM). In-process: `URLError(.networkConnectionLost)`.
    case resetDuringResponseBody(after: Int)
    /// The whole answer, then the server stops reading the connection: a next request on it
    /// is never answered. In-process the answer is whole and nothing fails.
    case shutdownInputAtEnd
    /// The whole answer, then the server's half of the connection closes: the client can
    /// send no next request on it. In-process the answer is whole and nothing fails.
    case shutdownOutputAtEnd
    /// The whole answer with `Connection: close`, then the close held this long (Toxiproxy's
    /// `slow_close`). In-process the answer is whole and nothing fails.
    case slowClose(Duration)
    /// No byte of answer; the connection closes after this long (Toxiproxy's `timeout`). A
    /// client whose own timeout is shorter gives up first. In-process:
    /// `URLError(.badServerResponse)` after the time, or `URLError(.timedOut)` at the request's
    /// `timeoutInterval` if that comes first.
    case timeout(after: Duration)
    /// The connection carries this many bytes in all, across its answers (heads included),
    /// then closes (Toxiproxy's `limit_data`). Over TLS the bytes counted are the connection's,
    /// encrypted, as a proxy in front of the server counts them. In-process, with no connection to count on, the
    /// body is cut at this many bytes: `URLError(.unknown)` on Linux,
    /// `URLError(.networkConnectionLost)` on Apple platforms.
    case limitData(Int)

    /// The fault names stub files use, in the order error messages list them.
    public static let fileNames = [
        "connection-reset", "empty-response", "malformed-chunk", "random-data-then-close", "no-response", "goaway",
        "disconnect-after-request", "disconnect-during-request-body", "disconnect-during-response-body",
        "reset-during-response-body", "shutdown-input-at-end", "shutdown-output-at-end", "slow-close", "timeout", "limit-data",
    ]

    /// The names that take an argument, and what it is: `{ after: N }` bytes, `{ after: 5s }`,
    /// a duration or a byte count.
    package enum Argument: Sendable {
        case afterBytes, afterDuration, duration, bytes
    }

    /// The argument `name` takes, or `nil` for a name that takes none.
    package static func argument(of name: String) -> Argument? {
        switch name {
        case "disconnect-during-request-body", "disconnect-during-response-body", "reset-during-response-body": return .afterBytes
        case "timeout": return .afterDuration
        case "slow-close": return .duration
        case "limit-data": return .bytes
        default: return nil
        }
    }

    /// Parses a stub-file name such as `connection-reset`; `nil` for an unknown name or one
    /// that takes an argument (`slow-close`, `limit-data` and the others written with one).
    public init?(fileName: String) {
        switch fileName {
        case "connection-reset": self = .connectionReset
        case "empty-response": self = .emptyResponse
        case "malformed-chunk": self = .malformedChunk
        case "random-data-then-close": self = .randomDataThenClose
        case "no-response": self = .noResponse
        case "goaway": self = .goaway
        case "disconnect-after-request": self = .disconnectAfterRequest
        case "shutdown-input-at-end": self = .shutdownInputAtEnd
        case "shutdown-output-at-end": self = .shutdownOutputAtEnd
        default: return nil
        }
    }

    /// Parses a stub-file name that takes an argument, with it: a byte count or a duration.
    package init?(fileName: String, bytes: Int?, duration: Duration?) {
        switch (fileName, bytes, duration) {
        case ("disconnect-during-request-body", let bytes?, _): self = .disconnectDuringRequestBody(after: bytes)
        case ("disconnect-during-response-body", let bytes?, _): self = .disconnectDuringResponseBody(after: bytes)
        case ("reset-during-response-body", let bytes?, _): self = .resetDuringResponseBody(after: bytes)
        case ("limit-data", let bytes?, _): self = .limitData(bytes)
        case ("timeout", _, let duration?): self = .timeout(after: duration)
        case ("slow-close", _, let duration?): self = .slowClose(duration)
        default: return nil
        }
    }

    /// The stub-file name with its argument, or `url-error(<code>)` for ``urlError(_:)``.
    public var description: String {
        switch self {
        case .connectionReset: return "connection-reset"
        case .emptyResponse: return "empty-response"
        case .malformedChunk: return "malformed-chunk"
        case .randomDataThenClose: return "random-data-then-close"
        case .noResponse: return "no-response"
        case .goaway: return "goaway"
        case .urlError(let code): return "url-error(\(code.rawValue))"
        case .disconnectAfterRequest: return "disconnect-after-request"
        case .disconnectDuringRequestBody(let bytes): return "disconnect-during-request-body(after: \(bytes))"
        case .disconnectDuringResponseBody(let bytes): return "disconnect-during-response-body(after: \(bytes))"
        case .resetDuringResponseBody(let bytes): return "reset-during-response-body(after: \(bytes))"
        case .shutdownInputAtEnd: return "shutdown-input-at-end"
        case .shutdownOutputAtEnd: return "shutdown-output-at-end"
        case .slowClose(let duration): return "slow-close(\(duration.compactDescription))"
        case .timeout(let duration): return "timeout(after: \(duration.compactDescription))"
        case .limitData(let bytes): return "limit-data(\(bytes))"
        }
    }

    /// Whether the fault replaces the answer before any byte of it (the kinds before the
    /// phase faults), rather than striking at a phase of the stub's own answer.
    package var replacesAnswer: Bool {
        switch self {
        case .connectionReset, .emptyResponse, .malformedChunk, .randomDataThenClose, .noResponse, .urlError, .goaway: return true
        default: return false
        }
    }

    /// The code a URLSession client meets for this fault on `corelibs` (swift-corelibs-foundation,
    /// Linux) or Apple's URLSession: a close after part of a body (curl's "partial file") is
    /// `URLError(.unknown)` on corelibs, which has no code of its own for it, and
    /// ``urlErrorCode`` on Apple platforms.
    package func urlErrorCode(corelibs: Bool) -> URLError.Code {
        switch self {
        case .disconnectDuringResponseBody, .limitData: return corelibs ? .unknown : urlErrorCode
        default: return urlErrorCode
        }
    }

    /// The `URLError` code a URLSession client sees for this fault in-process; for the faults
    /// that leave the answer whole (the half-closes, `slow-close`), the code a client would
    /// meet were it to fail, which it does not.
    public var urlErrorCode: URLError.Code {
        switch self {
        case .connectionReset, .goaway: return .networkConnectionLost
        case .emptyResponse, .disconnectAfterRequest, .timeout: return .badServerResponse
        case .malformedChunk, .randomDataThenClose: return .cannotParseResponse
        case .noResponse: return .timedOut
        case .urlError(let code): return code
        case .disconnectDuringRequestBody, .disconnectDuringResponseBody, .resetDuringResponseBody, .limitData,
             .shutdownInputAtEnd, .shutdownOutputAtEnd, .slowClose:
            return .networkConnectionLost
        }
    }
}
