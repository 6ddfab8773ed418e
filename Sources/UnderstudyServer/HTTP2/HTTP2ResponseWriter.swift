import Foundation
internal import NIOCore
internal import NIOHPACK
internal import NIOHTTP1
internal import NIOHTTP2
import Understudy

/// Writes one stream's response as HTTP/2 frames through its ``HTTP2FramePort``: the
/// HEADERS block of the rendering, DATA slices of the ``WireResponse`` body (a slice shares
/// the cached buffer, so a cached body is not copied per stream; no `sendfile` on HTTP/2) and
/// faults on the stream (see ``HTTP2FaultAction``).
///
/// The last frame written before a wait or the end is held back one step, so the end of the
/// stream rides on it: an unpaced answer is one HEADERS and one DATA frame with END_STREAM.
/// NIO's HTTP/2 handler sends DATA within the peer's flow-control windows, so paced slices
/// wait for the window too.
final class HTTP2ResponseWriter: ResponseWriter {
    private let port: HTTP2FramePort
    private let connection: HTTP2Connection
    let eventLoop: any EventLoop
    var httpVersion: Interaction.HTTPVersion { .http2 }

    private var wire: WireResponse?
    private var headers = HPACKHeaders()
    private var resetAfterEnd = false
    /// For an answer given before its request was whole (``resetAfterEnd``): whether the answer
    /// has left, and whether the client sent more of the request since.
    private var earlyAnswerLeft = false
    private var sentOnAfterAnswer = false
    private var headPending = false
    private var bodyPending: ByteBuffer?
    /// Body bytes handed to the writer, and those of them that have left (counted only under a
    /// `limit-data`, which may cut them).
    private var bodyBytesHanded = 0
    private var bodyBytesLeft = 0

    init(port: HTTP2FramePort, connection: HTTP2Connection, eventLoop: any EventLoop) {
        self.port = port
        self.connection = connection
        self.eventLoop = eventLoop
    }

    /// Points the writer at the stream's response.
    /// - Parameters:
    ///   - wire: the response's body (and its checked headers).
    ///   - headers: its HEADERS block.
    ///   - resetAfterEnd: whether the request is still arriving: once the response has left and
    ///     the client sends more of the request, RST_STREAM (NO_ERROR) asks it to stop.
    func prepare(_ wire: WireResponse, headers: HPACKHeaders, resetAfterEnd: Bool) {
        self.wire = wire
        self.headers = headers
        self.resetAfterEnd = resetAfterEnd
        earlyAnswerLeft = false
        sentOnAfterAnswer = false
    }

    /// The client sent more of a request already answered. Answered before it was whole, the
    /// stream is reset (NO_ERROR) once the answer has left: a client that stops at the answer
    /// (as one that asked `Expect: 100-continue` does) is never reset, and none meets a reset
    /// hard on the heels of its answer, which some clients take before the answer itself.
    /// - Parameter ended: whether what it sent ends the request (the stream then ends without
    ///   a reset).
    func requestWentOn(ended: Bool) {
        guard resetAfterEnd else { return }
        guard !ended else {
            resetAfterEnd = false
            return
        }
        guard earlyAnswerLeft else {
            sentOnAfterAnswer = true
            return
        }
        resetAfterEnd = false
        port.reset(.noError)
    }

    func writeHead() {
        headPending = true
    }

    func writeBody(_ range: Range<Int>) {
        guard let wire else { return }
        bodyBytesHanded += range.count
        writePending(endStream: false)
        bodyPending = wire.body.getSlice(at: wire.body.readerIndex + range.lowerBound, length: range.count)
    }

    func flush() {
        writePending(endStream: false)
        port.flush()
    }

    func end(close: Bool) {
        // One stream ends; the connection (and `close`, which is HTTP/1.1's) stays.
        guard resetAfterEnd else {
            writePending(endStream: true)
            return port.flush()
        }
        // A reset goes once the response has left (it would drop it), and only if the client
        // sends on (see requestWentOn(ended:)).
        let written = eventLoop.makePromise(of: Void.self)
        writePending(endStream: true, promise: written)
        port.flush()
        written.futureResult.assumeIsolated().whenComplete { [self] _ in
            earlyAnswerLeft = true
            if sentOnAfterAnswer { requestWentOn(ended: false) }
        }
    }

    func end(close: Bool, then left: @escaping () -> Void) {
        guard !resetAfterEnd else {
            end(close: close)
            return left()
        }
        let written = eventLoop.makePromise(of: Void.self)
        writePending(endStream: true, promise: written)
        port.flush()
        written.futureResult.assumeIsolated().whenComplete { _ in left() }
    }

    func abort() {
        reset(.internalError)
    }

    /// A phase fault that breaks the exchange (`disconnect-after-request`,
    /// `disconnect-during-request-body`, `disconnect-during-response-body`,
    /// `reset-during-response-body`, and `timeout` once its time is up) resets the stream with
    /// INTERNAL_ERROR after what was sent of the answer, whether HTTP/1.1 would close with a FIN
    /// or an RST: the stream has one way to break, and the other streams of the connection go
    /// on. INTERNAL_ERROR is what servers send when they give up on an answer they owe (a
    /// handler that failed, a source that broke, a write that timed out), and clients report
    /// it as the server's failure; CANCEL says the stream is no longer wanted, which servers
    /// send for requests they stop reading, and which clients may take for their own
    /// cancellation.
    func drop(reset: Bool) {
        self.reset(.internalError)
    }

    /// The phase faults that end the connection after a whole answer: on HTTP/2 the connection
    /// belongs to every stream on it, so the answer's own stream ends as usual and
    /// `shutdown-output-at-end` says what a FIN says on HTTP/1.1 (no next request on this
    /// connection) the HTTP/2 way: GOAWAY, the streams in flight finishing first.
    /// `shutdown-input-at-end` and `slow-close` change nothing a client sees on HTTP/2: input
    /// left unread would stall every stream's flow control, and HTTP/2 clients never wait for
    /// the close to find where a body ends.
    func endConnection(_ ending: ConnectionEnding) {
        guard ending == .shutdownOutput else { return end(close: false) }
        // After the answer has left: DATA waits for its flush (and window), a GOAWAY would not,
        // and some clients (Python's h2) take no frames after one.
        let connection = NIOLoopBound(self.connection, eventLoop: eventLoop)
        end(close: false) { connection.value.goAway() }
    }

    func limitData(_ bytes: Int) {
        connection.limitData(bytes)
    }

    var hasDataLimit: Bool { connection.dataLimit != nil }

    var dataLimitReached: DataLimitHandler.Limit? {
        guard let handler = connection.dataLimit, handler.isSpent else { return nil }
        return DataLimitHandler.Limit(bytes: handler.bytes, unsent: max(0, bodyBytesHanded - bodyBytesLeft))
    }

    /// Resets the stream with `code` once the DATA written has left: a reset drops frames still
    /// waiting for flow-control window.
    private func reset(_ code: HTTP2ErrorCode) {
        let written = eventLoop.makePromise(of: Void.self)
        writePending(endStream: false, promise: written)
        port.flush()
        let port = NIOLoopBound(self.port, eventLoop: eventLoop)
        written.futureResult.whenComplete { _ in port.value.reset(code) }
    }

    func perform(_ fault: Fault) -> Bool {
        switch fault.http2Action() {
        case .reset(let code):
            port.reset(code)
        case .overlongBody(let declared, let body):
            var block: HPACKHeaders = [":status": "200", "content-type": "application/octet-stream", "content-length": String(declared)]
            if let stubName = wire?.stubName { block.add(name: "x-understudy-stub", value: stubName) }
            port.write(.headers(.init(headers: block)))
            let buffer = ByteBuffer(bytes: body)
            port.write(.data(.init(data: .byteBuffer(buffer), endStream: true)))
            port.flush()
        case .hold:
            return true
        case .garbleConnection(let bytes):
            connection.garble(with: bytes)
        case .goAway:
            // The answer first: some clients (Python's h2) take no frames after a GOAWAY, even
            // for the streams it lets finish.
            writeHead()
            // A fault stub's body is empty; anything else is sent whole.
            if let wire, wire.body.readableBytes > 0 { writeBody(0..<wire.body.readableBytes) }
            end(close: true)
            connection.goAway()
        }
        return false
    }

    func writeInformational(_ head: InformationalHead) {
        // On HTTP/2 a 1xx is a HEADERS frame without END_STREAM, before the final one.
        port.write(.headers(.init(headers: HTTP2HeaderBlock.response(status: head.status, headers: head.headers))))
    }

    /// Writes the HEADERS and DATA held back, the last with END_STREAM when `endStream`.
    private func writePending(endStream: Bool, promise: EventLoopPromise<Void>? = nil) {
        var promise = promise
        if headPending {
            headPending = false
            let last = endStream && bodyPending == nil
            port.write(.headers(.init(headers: headers, endStream: last)), promise: last ? promise : nil)
            if last { return }
        }
        if let body = bodyPending {
            bodyPending = nil
            writeData(body, endStream: endStream, promise: promise)
            promise = nil
        } else if endStream {
            port.write(.data(.init(data: .byteBuffer(ByteBuffer()), endStream: true)), promise: promise)
            promise = nil
        }
        promise?.succeed()
    }

    /// Writes a DATA frame of `body`; under a `limit-data`, counts its bytes once they have
    /// left, the part that left of the frame the limit cut included.
    private func writeData(_ body: ByteBuffer, endStream: Bool, promise: EventLoopPromise<Void>?) {
        let frame = HTTP2Frame.FramePayload.data(.init(data: .byteBuffer(body), endStream: endStream))
        guard connection.dataLimit != nil else { return port.write(frame, promise: promise) }
        let written = eventLoop.makePromise(of: Void.self)
        let size = body.readableBytes
        let writer = NIOLoopBound(self, eventLoop: eventLoop)
        written.futureResult.whenComplete { result in
            switch result {
            case .success: writer.value.bodyBytesLeft += size
            case .failure(let cut as DataLimitHandler.Cut): writer.value.bodyBytesLeft += max(0, size - cut.unsent)
            case .failure: break
            }
        }
        if let promise { written.futureResult.cascade(to: promise) }
        port.write(frame, promise: written)
    }
}

extension HTTP2ResponseWriter: AdminResponseWriter {
    func prepare(admin wire: WireResponse, status: Int, headers: HeaderFields, for head: RequestHead, streamed: Bool) {
        // A stream's DATA frames go until END_STREAM; nothing else differs.
        prepare(wire, headers: HTTP2HeaderBlock.response(status: status, headers: headers), resetAfterEnd: false)
    }

    func writeChunk(_ chunk: ByteBuffer) -> EventLoopFuture<Void> {
        writePending(endStream: false)
        let written = eventLoop.makePromise(of: Void.self)
        port.write(.data(.init(data: .byteBuffer(chunk))), promise: written)
        port.flush()
        return written.futureResult
    }
}
