import Foundation
import Understudy

/// What a fault does to a connection, as steps the server carries out: the wire half of the
/// delivery state machine, free of sockets so it can be tested on its own.
enum WireAction: Sendable, Hashable {
    /// Write these bytes as they are, outside HTTP framing.
    case writeRaw(Data)
    /// Close the connection; with `reset`, abortively (SO_LINGER 0, so the peer sees a TCP RST).
    case close(reset: Bool)
    /// Send nothing and keep the connection open until the client leaves or the server stops.
    case hold
    /// Send the stub's own response (status, headers and body) with `Connection: close`.
    case writeResponseClosing
}

extension Fault {
    /// The wire steps that produce this fault for a response from stub `stubName`.
    /// - Parameter randomBytes: the garbage `random-data-then-close` sends (injected for tests).
    func wireActions(stubName: String?, randomBytes: Data = Fault.randomGarbage()) -> [WireAction] {
        switch self {
        case .connectionReset, .urlError:
            return [.close(reset: true)]
        case .emptyResponse:
            return [.close(reset: false)]
        case .malformedChunk:
            var head = "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nTransfer-Encoding: chunked\r\n"
            if let stubName { head += "X-Understudy-Stub: \(stubName)\r\n" }
            head += "\r\n"
            // A chunk-size line must be hexadecimal digits: this one is not.
            let chunk = "zz\r\nthis is not chunked framing\r\n"
            return [.writeRaw(Data((head + chunk).utf8)), .close(reset: false)]
        case .randomDataThenClose:
            return [.writeRaw(randomBytes), .close(reset: false)]
        case .noResponse:
            return [.hold]
        case .goaway:
            // HTTP/1.1 has no GOAWAY: the nearest is an answer that says the connection ends.
            return [.writeResponseClosing, .close(reset: false)]
        case .disconnectAfterRequest, .disconnectDuringRequestBody, .disconnectDuringResponseBody, .resetDuringResponseBody,
             .shutdownInputAtEnd, .shutdownOutputAtEnd, .slowClose, .timeout, .limitData:
            // Phase faults are steps of the delivery plan (see ``DeliveryAction/drop(reset:)``),
            // never a fault in place of the answer; were one asked for, the nearest is a close.
            return [.close(reset: false)]
        }
    }

    /// 256 random bytes that do not start like an HTTP status line.
    static func randomGarbage() -> Data {
        var bytes = (0..<256).map { _ in UInt8.random(in: 0...255) }
        // The first four are 0xFF: not HTTP/1's first letter, and, read as an HTTP/2 frame header,
        // a frame of an unknown type longer than any frame may be. Left random, the type byte
        // made a GOAWAY or SETTINGS on a stream 1 time in 100, and clients reported that instead.
        bytes.replaceSubrange(0..<4, with: repeatElement(0xFF, count: 4))
        return Data(bytes)
    }
}
