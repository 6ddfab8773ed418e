import Foundation
internal import NIOCore
internal import NIOHTTP1
import Understudy

/// What one HTTP/1.1 connection's handlers share: its state between requests and fast path
/// (``HTTP1FastPath``), its ``StubExchange``, and the exchange's target there: the connection's
/// one response at a time, written by an ``HTTP1ResponseWriter``.
///
/// Two thin handlers drive it, each translating its part of the pipeline into events:
/// ``RepeatedRequestShortcut`` (reads, in front of the decoder) and ``HTTP1ConnectionHandler``
/// (requests passed on, responses ended), whose ``HTTP1Answerer`` hands it requests to answer.
final class HTTP1Connection: ExchangeTarget {
    var fastPath: HTTP1FastPath
    let exchange: StubExchange
    private var writer: HTTP1ResponseWriter?
    private var driver: DeliveryDriver?
    /// How the response being delivered is framed: the request's version, and whether it asked
    /// to keep the connection.
    private var framing = (version: HTTPVersion.http1_1, keepAlive: true)

    /// - Parameter reads: the requests the connection's event loop keeps by their reads, for
    ///   connections of its scheme.
    init(exchange: StubExchange, reads: RepeatedReads = RepeatedReads()) {
        self.exchange = exchange
        self.fastPath = HTTP1FastPath(reads: reads)
    }

    /// Responses go to `context`, the connection handler's, from now on; `ended` is called each
    /// time one has been written in full and the connection stays open.
    func attach(_ context: ChannelHandlerContext, flushes: TurnFlushes, ended: @escaping () -> Void) {
        // Files go with sendfile(2) only where nothing between here and the socket transforms
        // the bytes: an `https` connection's go through TLS.
        writer = HTTP1ResponseWriter(context: context, sendsFiles: exchange.scheme == "http", clock: exchange.clock, flushes: flushes, ended: ended)
        fastPath.reads.connectionOpened()
    }

    /// The connection handler is gone: nothing more is written.
    func detach() {
        // The writer holds the context, which holds the handler.
        writer = nil
        fastPath.reads.connectionClosed()
    }

    /// The client went away (or the server is stopping): a delivery under way is cancelled.
    func clientLeft() {
        driver?.cancel()
        driver = nil
    }

    // MARK: - Requests

    /// Answers a whole request: again from the stub that answered it last when it repeats the
    /// kept one, else as the stubs decide.
    func answer(_ head: HTTPRequestHead, body: ByteBuffer?, arrival: ServerRequest.Arrival) {
        framing = (head.version, head.isKeepAlive)
        let repeats = fastPath.repeats
        if body == nil, exchange.answerRepeat(head, repeats: repeats, arrival: arrival, to: self) {
            return fastPath.decided(kept: true)
        }
        if body != nil { repeats.forget() }
        let kept = exchange.answer(head, body: body, key: head, repeats: repeats, keeping: fastPath.wantsKept, arrival: arrival, to: self)
        fastPath.decided(kept: kept)
    }

    /// Answers a read that the fast path found repeats a kept request's bytes; `false` when it
    /// does not, or the stubs changed since, and the read must be decoded.
    func answerRepeat(of bytes: ByteBuffer) -> Bool {
        guard let entry = fastPath.read(bytes) else { return false }
        framing = (entry.version, entry.keepAlive)
        let arrival = ServerRequest.Arrival.whole(on: exchange.eventLoop)
        let answered = exchange.answerAgain(
            entry.request, method: entry.method, match: entry.match, repeats: fastPath.repeats, arrival: arrival, to: self
        )
        guard answered else {
            fastPath.repeatFailed()
            return false
        }
        return true
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
}
