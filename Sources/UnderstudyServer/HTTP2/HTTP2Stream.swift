import Foundation
internal import NIOCore
internal import NIOHPACK
internal import NIOHTTP1
internal import NIOHTTP2
import Understudy

/// Answers one HTTP/2 stream, as its ``HTTP2Connection`` hands it the stream's frames: it
/// reads them as a request (`:authority` is the `Host` the stubs match on; 413 over the body
/// limit, as on HTTP/1.1), sends `/__admin/` to the ``AdminAPI`` through an ``AdminExchange`` (as HTTP/1.1 does), and answers everything else
/// with the server's ``StubResponder`` and a ``DeliveryDriver`` writing frames through an
/// ``HTTP2ResponseWriter``: the same decisions, plans and journal as HTTP/1.1.
///
/// A HEADERS block that repeats the last one a fixed canned stub answered (see
/// ``HTTP2Connection/Repeatable``) is answered again without being converted.
final class HTTP2Stream {
    private enum State {
        case awaitingHead
        case receiving(HTTPRequestHead, ByteBuffer?, start: Date, headTime: NIODeadline)
        /// Answered or being answered; anything more the client sends is dropped.
        case answering
    }

    private let connection: HTTP2Connection
    private let port: HTTP2FramePort
    private let responder: StubResponder
    private var state = State.awaitingHead
    /// Until NIO reports the stream closed.
    private var isOpen = true
    private let writer: HTTP2ResponseWriter
    private var driver: DeliveryDriver?
    /// An admin request's answer under way (the same code as HTTP/1.1's, streams included).
    private var admin: AdminExchange?
    /// Ends a request whose body does not arrive within the body timeout (408), as on HTTP/1.1.
    private var bodyTimer: Scheduled<Void>?
    /// The request's HEADERS block, kept with a repeatable answer.
    private var block = HPACKHeaders()
    /// The stream's inbound flow-control window, given back while its body arrives.
    private let window = HTTP2InboundWindow()

    init(id: HTTP2StreamID, connection: HTTP2Connection) {
        self.connection = connection
        self.responder = connection.shared.responder
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

    /// The WINDOW_UPDATE increment for the stream now that its inbound window is `size`:
    /// only while its body is still arriving.
    func windowIncrement(for size: Int) -> Int? {
        guard case .receiving = state else { return nil }
        return window.increment(for: size)
    }

    /// A request that cannot be taken as HTTP (no `:method`, a bad header) is malformed, a
    /// stream error (RFC 9113 section 8.1.1): reset, and journaled with what was read of it.
    private func refuseMalformed(_ reason: String) {
        var head: HTTPRequestHead?, start: Date?
        if case .receiving(let received, _, let started, _) = state { (head, start) = (received, started) }
        state = .answering
        bodyTimer?.cancel()
        bodyTimer = nil
        port.reset(.protocolError)
        journalMalformed(reason, head: head, start: start)
    }

    /// Journals a request refused as malformed, its stream reset without an answer: the
    /// request as far as it was read (`UNKNOWN /` when its header block itself was refused) and
    /// why, as HTTP/1.1 journals the requests it refuses.
    private func journalMalformed(_ reason: String, head: HTTPRequestHead?, start: Date?) {
        let request = head.map { StubRequest(head: $0, body: nil, scheme: connection.scheme, listener: connection.listener) }
            ?? StubRequest(partialHead: ByteBuffer(), scheme: connection.scheme, listener: connection.listener())
        let message = "malformed HTTP/2 request, stream reset with PROTOCOL_ERROR: \(reason)"
        let report = DeliveryReport(headSent: false, bodyBytesSent: 0, ending: .fault(.connectionReset), httpVersion: "HTTP/2")
        responder.close(nil, request: request, startTime: start ?? Date(), answer: .refused(status: 400, message, silently: true), report: report)
    }

    // MARK: - The request

    /// A HEADERS or DATA frame of the stream.
    func read(_ payload: HTTP2Frame.FramePayload) {
        switch payload {
        case .headers(let frame):
            switch state {
            case .awaitingHead:
                if frame.endStream, answerRepeat(frame.headers) { return }
                let head: HTTPRequestHead
                do {
                    head = try HTTPRequestHead(http2Request: frame.headers)
                } catch {
                    return refuseMalformed(error.message)
                }
                received(head, block: frame.headers, bodyFollows: !frame.endStream)
            case .receiving:
                // Trailers: they end the request, and are not matched on.
                break
            case .answering:
                return
            }
            if frame.endStream { ended() }
        case .data(let frame):
            guard case .receiving = state else { return }
            if case .byteBuffer(let chunk) = frame.data, chunk.readableBytes > 0 {
                receivedBody(chunk)
            }
            if frame.endStream { ended() }
        default:
            break
        }
    }

    /// A request's HEADERS: its head in hand, the body (if any, `bodyFollows`) still to come.
    private func received(_ head: HTTPRequestHead, block: HPACKHeaders, bodyFollows: Bool) {
        let maxBodySize = connection.shared.configuration.maxBodySize
        state = .receiving(head, nil, start: Date(), headTime: connection.eventLoop.now)
        self.block = block
        if let length = head.headers.first(name: "content-length").flatMap(Int.init), length > maxBodySize {
            return refuse(413, "request body over the limit of \(maxBodySize) bytes")
        }
        // The rest of the request has the body timeout, counted from its head, per stream:
        // the connection's other streams go on. A request whose HEADERS end it has no rest.
        guard bodyFollows else { return }
        let timeout = TimeAmount.nanoseconds(connection.shared.configuration.bodyTimeout.nanoseconds)
        let handler = NIOLoopBound(self, eventLoop: connection.eventLoop)
        bodyTimer = connection.eventLoop.scheduleTask(in: timeout) {
            guard handler.value.isOpen else { return }
            handler.value.refuse(408, "request body not received within \(timeout.prettyPrint)")
        }
    }

    private func receivedBody(_ chunk: ByteBuffer) {
        guard case .receiving(let head, var body, let start, let headTime) = state else { return }
        let maxBodySize = connection.shared.configuration.maxBodySize
        if (body?.readableBytes ?? 0) + chunk.readableBytes > maxBodySize {
            return refuse(413, "request body over the limit of \(maxBodySize) bytes")
        }
        if body == nil {
            body = chunk
        } else {
            var chunk = chunk
            body!.writeBuffer(&chunk)
        }
        state = .receiving(head, body, start: start, headTime: headTime)
    }

    /// END_STREAM: the request is whole.
    private func ended() {
        guard case .receiving(let head, let body, let start, let headTime) = state else { return }
        state = .answering
        bodyTimer?.cancel()
        bodyTimer = nil
        if let declared = head.headers.first(name: "content-length").flatMap(Int.init), declared != (body?.readableBytes ?? 0) {
            // NIO's check is off for the connection (see ServerPipeline.configureHTTP2): a
            // body that is not the length declared is malformed (RFC 9113 section 8.1.1).
            port.reset(.protocolError)
            return journalMalformed("a body of \(body?.readableBytes ?? 0) bytes where content-length says \(declared)", head: head, start: start)
        }
        let arrival = ServerRequest.Arrival(start: start, headTime: headTime, endTime: connection.eventLoop.now)
        if AdminExchange.isAdmin(head.uri) {
            admin = AdminExchange.start(head, body: body, admin: connection.shared.admin, writer: writer)
            return
        }
        answer(head, body: body, arrival: arrival)
    }

    /// Answers the request in hand with `status` before it is whole, journaled as a refusal.
    private func refuse(_ status: Int, _ message: String) {
        guard case .receiving(let head, _, let start, let headTime) = state else { return }
        state = .answering
        bodyTimer?.cancel()
        bodyTimer = nil
        let request = StubRequest(head: head, body: nil, scheme: connection.scheme, listener: connection.listener)
        let arrival = ServerRequest.Arrival(start: start, headTime: headTime, endTime: connection.eventLoop.now)
        deliver(.refused(status: status, message), request: request, method: head.method.rawValue, arrival: arrival, requestWhole: false)
    }

    // MARK: - Stubs

    private func answer(_ head: HTTPRequestHead, body: ByteBuffer?, arrival: ServerRequest.Arrival) {
        let method = head.method.rawValue
        connection.repeatable = nil
        let request = StubRequest(head: head, body: body, scheme: connection.scheme, listener: connection.listener)
        var repeatableMatch: StubRegistry.RepeatableMatch?
        switch responder.decide(request, keepingRepeat: connection.repeatBackoff.keepsNext(), repeatable: &repeatableMatch) {
        case .answer(let answer):
            if let repeatableMatch {
                connection.repeatable = HTTP2Connection.Repeatable(head: head, block: block, request: request, match: repeatableMatch)
            }
            deliver(answer, request: request, method: method, arrival: arrival)
        case .pending(let pending):
            // In the journal (in flight) while the closure, codec or upstream works.
            let id = responder.open(request, httpVersion: "HTTP/2")
            let responder = self.responder
            let handler = NIOLoopBound(self, eventLoop: connection.eventLoop)
            let promise = connection.eventLoop.makePromise(of: StubAnswer.self)
            promise.completeWithTask { await responder.answer(pending) }
            promise.futureResult.whenSuccess { answer in
                guard handler.value.isOpen else {
                    // The stream went away while the stub was thinking.
                    responder.close(id, request: request, startTime: arrival.start, answer: answer,
                                    report: DeliveryReport(headSent: false, bodyBytesSent: 0, ending: .cancelled, httpVersion: "HTTP/2"))
                    return
                }
                handler.value.deliver(answer, request: request, method: method, arrival: arrival, journalID: id)
            }
        }
    }

    /// Answers a whole request whose HEADERS block repeats, field for field, that of the last
    /// request a fixed canned stub answered on this connection, with the same stub; `false`
    /// when it is not such a repeat or the stubs changed since.
    private func answerRepeat(_ block: HPACKHeaders) -> Bool {
        guard let last = connection.repeatable else { return false }
        guard Self.isRepeat(block, of: last.block), let answer = responder.answerAgain(last.match, for: last.request) else {
            connection.repeatBackoff.missed()
            return false
        }
        connection.repeatBackoff.repeated()
        state = .answering
        let now = connection.eventLoop.now
        deliver(answer, request: last.request, method: last.head.method.rawValue, arrival: ServerRequest.Arrival(start: Date(), headTime: now, endTime: now))
        return true
    }

    /// Whether `block` holds exactly the fields of `last`, in order, so the request made of it
    /// would be the same.
    private static func isRepeat(_ block: HPACKHeaders, of last: HPACKHeaders) -> Bool {
        guard block.count == last.count else { return false }
        return zip(block, last).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }

    private func deliver(
        _ answer: StubAnswer, request: StubRequest, method: String, arrival: ServerRequest.Arrival, journalID: Int? = nil,
        requestWhole: Bool = true
    ) {
        guard isOpen else { return }
        var answer = answer
        let wire: WireResponse
        do {
            wire = try connection.wireResponses.response(for: answer.response, allocator: connection.allocator)
        } catch {
            let message = "stub \"\(answer.response.stubName ?? "")\" cannot be sent: \(error.message)"
            answer = StubAnswer(response: .text(status: 500, message + "\n"), kind: .failed(message))
            wire = try! WireResponse(answer.response, allocator: connection.allocator)
        }
        writer.prepare(wire, headers: connection.headerBlock(for: answer.response), resetAfterEnd: !requestWhole)
        let driver = DeliveryDriver(
            answer: answer, request: request, method: method, arrival: arrival, journalID: journalID, responder: responder, writer: writer,
            pacing: connection.pacing
        )
        self.driver = driver
        driver.run()
    }
}
