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
}

extension ResponseWriter {
    /// What the journal records the exchange as: `HTTP/1.1` unless the writer says otherwise.
    var httpVersion: Interaction.HTTPVersion { .http1_1 }
}
