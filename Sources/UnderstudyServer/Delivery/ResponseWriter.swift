internal import NIOCore
import Understudy

/// Where a ``DeliveryDriver`` carries out a delivery plan: an HTTP/1.1 connection
/// (``HTTP1ResponseWriter``) or an HTTP/2 stream (``HTTP2ResponseWriter``). Every call is made
/// on ``eventLoop``.
protocol ResponseWriter: AnyObject {
    /// The loop the writer lives on; the driver's timers run there.
    var eventLoop: any EventLoop { get }
    /// `HTTP/1.1` or `HTTP/2`, for the journal (HTTP/1.1 by default).
    var httpVersion: Interaction.HTTPVersion { get }
    /// Sends the status line (or HEADERS) of the response being delivered.
    func writeHead()
    /// Sends these bytes of its body.
    func writeBody(_ range: Range<Int>)
    /// Pushes out what was written, before a wait.
    func flush()
    /// The response is complete; the connection closes afterwards when `close` is true.
    func end(close: Bool)
    /// Drops the connection (or stream) after a partial body.
    func abort()
    /// Carries out `fault` in place of the response.
    /// - Returns: `true` when the exchange is held open (``Fault/noResponse``), `false` when
    ///   the fault ended it.
    func perform(_ fault: Fault) -> Bool
    /// Sends a 1xx head before the final one (HTTP/2: a HEADERS frame without END_STREAM).
    func writeInformational(_ head: InformationalHead)
    /// Says in the coming head that the connection closes after this answer.
    func announceClose()
    /// Ends the exchange now for a phase fault: closes the connection, abortively (a TCP RST)
    /// when `reset` (HTTP/2: RST_STREAM on the stream, the connection stays).
    func drop(reset: Bool)
    /// The answer is complete; the connection then ends as `ending` says.
    func endConnection(_ ending: ConnectionEnding)
    /// The connection carries at most `bytes` more bytes in all, then closes; a limit set
    /// before on the connection stays.
    func limitData(_ bytes: Int)
    /// The connection's `limit-data`, once it has been reached and the connection closed, with
    /// the bytes written past it; `nil` before, or without a limit.
    var dataLimitReached: DataLimitHandler.Limit? { get }
    /// Whether a `limit-data` is set on the connection and may cut bytes after ``end(close:)``
    /// returns (bytes written are held before they reach the socket).
    var hasDataLimit: Bool { get }
    /// Ends the answer as ``end(close:)`` does, then calls `left` once its last bytes have left
    /// (or failed to): where a `limit-data` may cut them on their way.
    func end(close: Bool, then left: @escaping () -> Void)
}

extension ResponseWriter {
    /// What the journal records the exchange as: `HTTP/1.1` unless the writer says otherwise.
    var httpVersion: Interaction.HTTPVersion { .http1_1 }

    // What a writer that has not learnt the phase faults does: the nearest it has.
    func writeInformational(_ head: InformationalHead) {}
    func announceClose() {}
    func drop(reset: Bool) { abort() }
    func endConnection(_ ending: ConnectionEnding) { end(close: false) }
    func limitData(_ bytes: Int) {}
    var dataLimitReached: DataLimitHandler.Limit? { nil }
    // A writer whose writes reach the socket at once: a cut ends the exchange inside the write.
    var hasDataLimit: Bool { false }
    func end(close: Bool, then left: @escaping () -> Void) {
        end(close: close)
        left()
    }
}
