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
    private var headPending = false
    private var bodyPending: ByteBuffer?

    init(port: HTTP2FramePort, connection: HTTP2Connection, eventLoop: any EventLoop) {
        self.port = port
        self.connection = connection
        self.eventLoop = eventLoop
    }

    /// Points the writer at the stream's response.
    /// - Parameters:
    ///   - wire: the response's body (and its checked headers).
    ///   - headers: its HEADERS block.
    ///   - resetAfterEnd: whether the request is still arriving: after the response, RST_STREAM
    ///     (NO_ERROR) asks the client to stop sending it (RFC 9113 section 8.1).
    func prepare(_ wire: WireResponse, headers: HPACKHeaders, resetAfterEnd: Bool) {
        self.wire = wire
        self.headers = headers
        self.resetAfterEnd = resetAfterEnd
    }

    func writeHead() {
        headPending = true
    }

    func writeBody(_ range: Range<Int>) {
        guard let wire else { return }
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
        // As in abort(): the reset goes once the response has left, or it would drop it.
        let written = eventLoop.makePromise(of: Void.self)
        writePending(endStream: true, promise: written)
        port.flush()
        let port = NIOLoopBound(self.port, eventLoop: eventLoop)
        written.futureResult.whenComplete { _ in port.value.reset(.noError) }
    }

    func abort() {
        // A reset drops frames still waiting for flow-control window: it goes once the DATA has left.
        let written = eventLoop.makePromise(of: Void.self)
        writePending(endStream: false, promise: written)
        port.flush()
        let port = NIOLoopBound(self.port, eventLoop: eventLoop)
        written.futureResult.whenComplete { _ in port.value.reset(.internalError) }
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
            port.write(.data(.init(data: .byteBuffer(body), endStream: endStream)), promise: promise)
            promise = nil
        } else if endStream {
            port.write(.data(.init(data: .byteBuffer(ByteBuffer()), endStream: true)), promise: promise)
            promise = nil
        }
        promise?.succeed()
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
