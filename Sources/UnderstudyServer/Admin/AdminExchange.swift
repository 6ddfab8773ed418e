import Foundation
internal import NIOCore
internal import NIOHTTP1
import Understudy

/// Where an admin answer goes: the ``ResponseWriter`` of an HTTP/1.1 connection (bytes) or of
/// an HTTP/2 stream (frames), with what a streamed answer needs besides.
protocol AdminResponseWriter: ResponseWriter {
    /// Points the writer at an admin answer to `head`.
    /// - Parameters:
    ///   - wire: the answer, framed (its headers checked).
    ///   - status: its status.
    ///   - headers: its header fields.
    ///   - head: the request it answers.
    ///   - streamed: whether its body follows in chunks (``writeChunk(_:)``) after a head
    ///     without a length, until ``ResponseWriter/end(close:)``.
    func prepare(admin wire: WireResponse, status: Int, headers: HeaderFields, for head: RequestHead, streamed: Bool)
    /// Sends one chunk of a streamed body now; the future fails once the client is gone.
    func writeChunk(_ chunk: ByteBuffer) -> EventLoopFuture<Void>
}

/// One request to the admin API, on HTTP/1.1 or HTTP/2: the same code turns it into an
/// ``AdminRequest``, asks the ``AdminAPI`` and writes the answer through the protocol's
/// ``AdminResponseWriter``, streamed answers (`GET /__admin/events`) included. Only the framing
/// differs between the protocols. Lives on the writer's event loop.
final class AdminExchange {
    private let writer: any AdminResponseWriter
    private var cancelled = false
    private var streaming: Task<Void, Never>?

    private init(writer: any AdminResponseWriter) {
        self.writer = writer
    }

    private static let adminPrefix = Array("/__admin".utf8)

    /// Whether the request target `uri` is for the admin API (and must not reach the stubs).
    static func isAdmin(_ uri: String) -> Bool {
        // A byte test first, on the target's contiguous bytes: every request asks, and few are
        // for the admin API.
        var target = uri
        return target.withUTF8 { $0.starts(with: adminPrefix) } && AdminAPI.isAdminPath(String(uri.prefix { $0 != "?" }))
    }

    /// Answers the admin request `head` (and `body`) with `admin` through `writer`.
    /// - Returns: the exchange, to ``cancel()`` when the connection or stream goes.
    static func start(_ head: RequestHead, body: ByteBuffer?, admin: AdminAPI, writer: any AdminResponseWriter) -> AdminExchange {
        let exchange = AdminExchange(writer: writer)
        let request = AdminRequest(
            method: head.method, target: head.target, headers: HeaderFields(head.fields),
            body: body.map { Data($0.readableBytesView) } ?? Data()
        )
        let bound = NIOLoopBound(exchange, eventLoop: writer.eventLoop)
        let promise = writer.eventLoop.makePromise(of: AdminResponse.self)
        promise.completeWithTask { await admin.handle(request) }
        promise.futureResult.whenSuccess { response in
            bound.value.write(response, to: head)
        }
        return exchange
    }

    /// The connection or stream went: nothing more is written, a stream stops being read.
    func cancel() {
        cancelled = true
        streaming?.cancel()
        streaming = nil
    }

    private func write(_ response: AdminResponse, to head: RequestHead) {
        guard !cancelled else { return }
        var status = response.status, headers = response.headers
        var stream = response.stream
        // A stream's length is where it ends: it has none.
        if stream != nil { headers.remove("Content-Length") }
        var wire: WireResponse
        do throws(WireResponse.InvalidHeader) {
            wire = try WireResponse(PreparedResponse(status: status, headers: headers, body: response.body), allocator: ByteBufferAllocator())
        } catch {
            let fallback = PreparedResponse.text(status: 500, "admin response cannot be sent: \(error.message)\n")
            (status, headers, stream) = (fallback.status, fallback.headers, nil)
            wire = try! WireResponse(fallback, allocator: ByteBufferAllocator())
        }
        writer.prepare(admin: wire, status: status, headers: headers, for: head, streamed: stream != nil)
        writer.writeHead()
        let sendsBody = head.method != "HEAD"
        if sendsBody, wire.body.readableBytes > 0 {
            writer.writeBody(0..<wire.body.readableBytes)
        }
        guard let stream, sendsBody else {
            return writer.end(close: stream != nil)
        }
        writer.flush()
        send(stream)
    }

    /// Sends each chunk as the stream yields it, one at a time (the next waits for the last to
    /// be written), until the stream ends or the client goes away; then the answer ends (an
    /// HTTP/1.1 connection closes, an HTTP/2 stream ends).
    private func send(_ stream: AsyncStream<Data>) {
        let loop = writer.eventLoop
        let bound = NIOLoopBound(self, eventLoop: loop)
        streaming = Task {
            for await chunk in stream {
                let written = loop.flatSubmit { bound.value.writeChunk(chunk) }
                guard (try? await written.get()) != nil else { break }
            }
            loop.execute { bound.value.finishStream() }
        }
    }

    private func writeChunk(_ chunk: Data) -> EventLoopFuture<Void> {
        guard !cancelled else { return writer.eventLoop.makeFailedFuture(ChannelError.ioOnClosedChannel) }
        return writer.writeChunk(ByteBuffer(bytes: chunk))
    }

    private func finishStream() {
        guard !cancelled else { return }
        streaming = nil
        writer.end(close: true)
    }
}
