import Foundation
internal import NIOCore
internal import NIOHTTP1
import Understudy

/// What one HTTP/1.1 connection's answering shares: its ``StubExchange``, and the exchange's
/// target there: the connection's one response at a time, written by an
/// ``HTTP1ResponseWriter``.
///
/// ``HTTP1ConnectionHandler``'s ``HTTP1Answerer`` hands it requests to answer.
final class HTTP1Connection: ExchangeTarget {
    let exchange: StubExchange
    private var writer: HTTP1ResponseWriter?
    private var driver: DeliveryDriver?
    /// Admin answers' writer: their bodies are in memory, never sent from a file.
    private var admin: HTTP1ResponseWriter?
    private var adminExchange: AdminExchange?
    /// How the response being delivered is framed: the request's version, and whether it asked
    /// to keep the connection.
    private var framing = (version: HTTPVersion.http1_1, keepAlive: true)

    init(exchange: StubExchange) {
        self.exchange = exchange
    }

    /// Responses go to `context`, the connection handler's, from now on; `ended` is called each
    /// time one has been written in full and the connection stays open.
    func attach(_ context: ChannelHandlerContext, flushes: TurnFlushes, ended: @escaping () -> Void) {
        // Files go with sendfile(2) only where nothing between here and the socket transforms
        // the bytes: an `https` connection's go through TLS.
        writer = HTTP1ResponseWriter(context: context, sendsFiles: exchange.scheme == "http", clock: exchange.clock, flushes: flushes, ended: ended)
        admin = HTTP1ResponseWriter(context: context, sendsFiles: false, clock: exchange.clock, ended: ended)
    }

    /// The connection handler is gone: nothing more is written.
    func detach() {
        adminExchange?.cancel()
        adminExchange = nil
        // The writers hold the context, which holds the handler.
        writer = nil
        admin = nil
    }

    /// The client went away (or the server is stopping): a delivery under way is cancelled.
    func clientLeft() {
        driver?.cancel()
        driver = nil
        adminExchange?.cancel()
        adminExchange = nil
    }

    // MARK: - Requests

    /// Answers a request, whole unless the rest of its body is left unread (`bodyUnread`).
    func answer(_ head: RequestHead, body: ByteBuffer?, arrival: ServerRequest.Arrival, bodyUnread: Bool = false) {
        framing = (HTTPVersion(head.version), head.keepAlive)
        exchange.answer(head, body: body, arrival: arrival, bodyUnread: bodyUnread, to: self)
    }

    /// Answers a request refused before it was whole; the connection closes after.
    func refuse(_ answer: StubAnswer, request: StubRequest, arrival: ServerRequest.Arrival) {
        framing = (.http1_1, false)
        exchange.refuse(answer, request: request, arrival: arrival, to: self)
    }

    /// Delivers `answer`, made here rather than by the stubs (a `CONNECT` refused), closing after.
    func deliver(_ answer: StubAnswer, request: StubRequest, version: HTTPVersion, arrival: ServerRequest.Arrival) {
        framing = (version, false)
        exchange.deliver(answer, request: request, method: request.method, arrival: arrival, to: self)
    }

    // MARK: - ExchangeTarget

    var isAnswerable: Bool { writer != nil }

    func writer(for wire: WireResponse, of answer: StubAnswer, refused: Bool) -> any ResponseWriter {
        let writer = self.writer!
        writer.prepare(
            wire, version: framing.version, keepAlive: framing.keepAlive && !refused,
            closing: answer.response.truncateAfter != nil || refused, lingering: refused
        )
        return writer
    }

    func delivering(_ driver: DeliveryDriver) {
        self.driver = driver
    }

    func sendContinue() {
        writer?.writeContinue()
    }

    var adminWriter: any AdminResponseWriter { admin! }

    func answering(_ admin: AdminExchange) {
        adminExchange = admin
    }
}
