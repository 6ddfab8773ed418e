import Foundation
internal import NIOCore
internal import NIOHPACK
internal import NIOHTTP1
internal import NIOHTTP2
import Understudy

/// One HTTP/2 stream, as its ``HTTP2Connection`` hands it the stream's frames: it reads them as
/// a request (`:authority` is the `Host` the stubs match on; 413 over the body limit, as on
/// HTTP/1.1), refuses a malformed one, and hands the rest to the connection's ``StubExchange``,
/// the code HTTP/1.1 answers with too. It is the exchange's target: it points an
/// ``HTTP2ResponseWriter`` at the response, which writes it as frames.
final class HTTP2Stream: ExchangeTarget {
    private enum State {
        case awaitingHead
        case receiving(ArrivingRequest)
        /// Answered or being answered; anything more the client sends is dropped.
        case answering
    }

    private let connection: HTTP2Connection
    private let port: HTTP2FramePort
    private var state = State.awaitingHead
    /// Until NIO reports the stream closed.
    private var isOpen = true
    private let writer: HTTP2ResponseWriter
    private var driver: DeliveryDriver?
    /// An admin request's answer under way (the same code as HTTP/1.1's, streams included).
    private var admin: AdminExchange?
    /// Ends a request whose body does not arrive within the body timeout (408), as on HTTP/1.1.
    private var bodyTimer: LoopAlarm?
    /// The stream's inbound flow-control window, given back while its body arrives.
    private let window = HTTP2InboundWindow()

    init(id: HTTP2StreamID, connection: HTTP2Connection) {
        self.connection = connection
        self.port = HTTP2FramePort(streamID: id, connection: connection)
        self.writer = HTTP2ResponseWriter(port: port, connection: connection, eventLoop: connection.eventLoop)
    }

    /// NIO reports the stream closed: both sides ended it, or one reset it, or the connection
    /// went. A delivery under way stops.
    func closed() {
        isOpen = false
        bodyTimer?.cancel()
        bodyTimer = nil
        port.detach()
        driver?.cancel()
        driver = nil
        admin?.cancel()
        admin = nil
    }

    /// NIO refused a frame written to the stream (`error`): it was reset, by the client or by
    /// NIO. An answer under way hears of it when the stream closes; a request still arriving is
    /// journaled with why, as one refused for being malformed.
    func failed(_ error: any Error) {
        guard case .receiving = state else { return }
        refuseMalformed(String(describing: error))
    }

    /// NIO refused a frame of the stream's request as malformed, and reset the stream itself:
    /// the request is journaled with `reason`.
    func refusedByNIO(_ reason: String) {
        guard case .receiving = state else { return }
        refuseMalformed(reason, reset: false)
    }

    /// The WINDOW_UPDATE increment for the stream now that its inbound window is `size`:
    /// only while its body is still arriving.
    func windowIncrement(for size: Int) -> Int? {
        guard case .receiving = state else { return nil }
        return window.increment(for: size)
    }

    /// A request that cannot be taken as HTTP (no `:method`, a bad header) is malformed, a
    /// stream error: reset, and journaled with what was read of it.
    private func refuseMalformed(_ reason: String, reset: Bool = true) {
        var head: RequestHead?, start: Date?
        if case .receiving(let request) = state { (head, start) = (request.head, request.start) }
        state = .answering
        bodyTimer?.cancel()
        bodyTimer = nil
        if reset { port.reset(.protocolError) }
        journalMalformed(reason, head: head, start: start)
    }

    /// Journals a request refused as malformed, its stream reset without an answer: the
    /// request as far as it was read (`UNKNOWN /` when its header block itself was refused) and
    /// why, as HTTP/1.1 journals the requests it refuses.
    private func journalMalformed(_ reason: String, head: RequestHead?, start: Date?) {
        let message = "malformed HTTP/2 request, stream reset with PROTOCOL_ERROR: \(reason)"
        connection.exchange.journalUnanswered(.refused(status: 400, message, silently: true), head: head, start: start)
    }

    // MARK: - The request

    /// A HEADERS or DATA frame of the stream.
    func read(_ payload: HTTP2Frame.FramePayload) {
        switch payload {
        case .headers(let frame):
            switch state {
            case .awaitingHead:
                let head: RequestHead
                do {
                    head = try RequestHead(http2Request: frame.headers)
                } catch {
                    return refuseMalformed(error.message)
                }
                received(head, bodyFollows: !frame.endStream)
            case .receiving:
                // Trailers: they end the request, and are not matched on, but are checked as
                // the head was.
                do {
                    try HTTP2FieldRules.checkTrailers(frame.headers)
                } catch {
                    return refuseMalformed(error.message)
                }
            case .answering:
                return
            }
            if frame.endStream { ended() }
        case .data(let frame):
            guard case .receiving = state else { return writer.requestWentOn(ended: frame.endStream) }
            if case .byteBuffer(let chunk) = frame.data, chunk.readableBytes > 0 {
                receivedBody(chunk)
            }
            if frame.endStream { ended() }
        default:
            break
        }
    }

    /// A request's HEADERS: its head in hand, the body (if any, `bodyFollows`) still to come.
    private func received(_ head: RequestHead, bodyFollows: Bool) {
        let maxBodySize = connection.shared.configuration.maxBodySize
        var request = ArrivingRequest(head, at: connection.eventLoop.now)
        state = .receiving(request)
        if head.declaresBody(over: maxBodySize) {
            return refuse(.bodyOverLimit(maxBodySize))
        }
        // The rest of the request has the body timeout, counted from its head, per stream:
        // the connection's other streams go on. A request whose HEADERS end it has no rest.
        guard bodyFollows else { return }
        guard let cutAfter = connection.exchange.bodyArriving(head, to: self) else {
            return passOnUnread(request)
        }
        if let cutAfter {
            request.cutAfter = cutAfter
            state = .receiving(request)
        }
        let timeout = TimeAmount.nanoseconds(connection.shared.configuration.bodyTimeout.nanoseconds)
        bodyTimer = connection.exchange.clock.alarm(in: timeout) { [self] in
            guard isOpen else { return }
            refuse(.bodyTimedOut(timeout))
        }
    }

    private func receivedBody(_ chunk: ByteBuffer) {
        guard case .receiving(var request) = state else { return }
        let maxBodySize = connection.shared.configuration.maxBodySize
        // Out of the state while it grows, so that its buffer is not shared and copied.
        state = .answering
        let intake = request.append(chunk, limit: maxBodySize)
        state = .receiving(request)
        switch intake {
        case .taken: break
        case .overLimit: refuse(.bodyOverLimit(maxBodySize))
        case .cut: passOnUnread(request)
        }
    }

    /// Passes on `request` to be answered now, the rest of its body unread: the stream is
    /// reset after the answer if the client sends on.
    private func passOnUnread(_ request: ArrivingRequest) {
        state = .answering
        bodyTimer?.cancel()
        bodyTimer = nil
        let arrival = request.arrival(endingAt: connection.eventLoop.now)
        connection.answer(request.head, body: request.body, arrival: arrival, bodyUnread: true, on: self)
    }

    /// END_STREAM: the request is whole.
    private func ended() {
        guard case .receiving(let request) = state else { return }
        let (head, body, start) = (request.head, request.body, request.start)
        state = .answering
        bodyTimer?.cancel()
        bodyTimer = nil
        if let declared = head.fields.first(name: "content-length").flatMap(Int.init), declared != (body?.readableBytes ?? 0) {
            // NIO's check is off for the connection (see ServerPipeline.configureHTTP2): a
            // body that is not the length declared is malformed, as HTTP/2 defines it.
            port.reset(.protocolError)
            return journalMalformed("a body of \(body?.readableBytes ?? 0) bytes where content-length says \(declared)", head: head, start: start)
        }
        connection.answer(head, body: body, arrival: request.arrival(endingAt: connection.eventLoop.now), on: self)
    }

    /// Answers the request in hand with `status` before it is whole, journaled as a refusal.
    private func refuse(_ answer: StubAnswer) {
        guard case .receiving(let request) = state else { return }
        state = .answering
        bodyTimer?.cancel()
        bodyTimer = nil
        let arrival = request.arrival(endingAt: connection.eventLoop.now)
        connection.exchange.refuse(answer, request: connection.exchange.request(request.head, body: nil), arrival: arrival, to: self)
    }

    // MARK: - ExchangeTarget

    var isAnswerable: Bool { isOpen }

    func writer(for wire: WireResponse, of answer: StubAnswer, refused: Bool) -> any ResponseWriter {
        writer.prepare(wire, headers: connection.headerBlock(for: answer.response), resetAfterEnd: refused)
        return writer
    }

    func delivering(_ driver: DeliveryDriver) {
        self.driver = driver
    }

    func sendContinue() {
        writer.writeInformational(InformationalHead(status: 100))
    }

    var adminWriter: any AdminResponseWriter { writer }

    func answering(_ admin: AdminExchange) {
        self.admin = admin
    }
}
