import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Understudy

/// One connection's HTTP exchanges: builds the ``StubRequest``, resolves it against the
/// registry off the event loop, then carries out the response's ``DeliveryPlan`` on the event
/// loop with timers (never a blocking sleep). `HTTPServerPipelineHandler` in front of it holds
/// pipelined requests back until the current response has ended.
final class StubHTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private enum ReadState {
        case idle
        case receiving(HTTPRequestHead, ByteBuffer?)
        /// The body went over the limit: the 413 is on its way and the rest is ignored.
        case refusing
    }

    /// How a request is answered, decided on or off the event loop.
    private struct Reply: Sendable {
        var prepared: PreparedResponse
        var outcome: Interaction.Outcome
        var transport: Interaction.Transport?
        var nearMisses: [NearMiss] = []
    }

    /// The response being delivered: a class, since every step of the plan updates it.
    private final class Delivery {
        var plan: DeliveryPlan
        let prepared: PreparedResponse
        let wire: WireResponse
        let request: StubRequest
        let journalID: Int
        let keepAlive: Bool
        let version: HTTPVersion
        var outcome: Interaction.Outcome
        let transport: Interaction.Transport?
        let nearMisses: [NearMiss]
        var bodyBytesSent = 0
        var headSent = false

        init(reply: Reply, wire: WireResponse, request: StubRequest, journalID: Int, keepAlive: Bool, version: HTTPVersion) {
            self.plan = reply.prepared.deliveryPlan(method: request.method)
            self.prepared = reply.prepared
            self.wire = wire
            self.request = request
            self.journalID = journalID
            self.keepAlive = keepAlive
            self.version = version
            self.outcome = reply.outcome
            self.transport = reply.transport
            self.nearMisses = reply.nearMisses
        }
    }

    private let shared: ServerShared
    private var readState = ReadState.idle
    private var delivery: Delivery?
    private var pendingTimer: Scheduled<Void>?
    private var context: ChannelHandlerContext?

    init(shared: ServerShared) {
        self.shared = shared
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    // MARK: - Reading

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            if let length = head.headers.first(name: "content-length").flatMap(Int.init), length > shared.configuration.maxBodySize {
                return refuseBody(head: head)
            }
            readState = .receiving(head, nil)
        case .body(var chunk):
            guard case .receiving(let head, var body) = readState else { return }
            if (body?.readableBytes ?? 0) + chunk.readableBytes > shared.configuration.maxBodySize {
                return refuseBody(head: head)
            }
            if body == nil {
                body = chunk
            } else {
                body!.writeBuffer(&chunk)
            }
            readState = .receiving(head, body)
        case .end:
            guard case .receiving(let head, let body) = readState else {
                readState = .idle
                return
            }
            readState = .idle
            dispatch(head: head, body: body, context: context)
        }
    }

    private func refuseBody(head: HTTPRequestHead) {
        guard let context else { return }
        readState = .refusing
        let request = makeRequest(head: head, body: nil)
        let id = shared.registry.journal.begin(request, transport: .server)
        let message = "request body over the limit of \(shared.configuration.maxBodySize) bytes\n"
        let prepared = PreparedResponse(
            status: 413,
            headers: ["Content-Type": "text/plain; charset=utf-8", "Content-Length": String(message.utf8.count), "Connection": "close"],
            body: Data(message.utf8)
        )
        start(
            Reply(prepared: prepared, outcome: .failed("request body over the limit")),
            request: request, id: id, keepAlive: false, version: head.version, context: context
        )
    }

    // MARK: - Dispatch

    private func makeRequest(head: HTTPRequestHead, body: ByteBuffer?) -> StubRequest {
        var headers = HeaderFields()
        for header in head.headers {
            headers.add(name: header.name, value: header.value)
        }
        let bodyData = body.map { Data($0.readableBytesView) }
        let lowered = head.uri.prefix(8).lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://"), let absolute = URL(string: head.uri) {
            // Forward-proxy mode: an absolute-form request target.
            return StubRequest(method: head.method.rawValue, url: absolute, headers: headers, body: bodyData)
        }
        // The listener's address (behind a lock) only when the client sent no Host.
        let authority = head.headers.first(name: "host") ?? { let listener = shared.listener; return "\(listener.host):\(listener.port)" }()
        let target = head.uri.hasPrefix("/") ? head.uri : "/" + head.uri
        if let request = StubRequest(
            method: head.method.rawValue, scheme: shared.scheme, authority: authority, target: target, headers: headers, body: bodyData
        ) {
            return request
        }
        let listener = shared.listener
        return StubRequest(method: head.method.rawValue, url: URL(string: "\(shared.scheme)://\(listener.host):\(listener.port)/")!, headers: headers, body: bodyData)
    }

    private func dispatch(head: HTTPRequestHead, body: ByteBuffer?, context: ChannelHandlerContext) {
        if head.uri.hasPrefix("/"), AdminAPI.isAdminPath(String(head.uri.prefix { $0 != "?" })) {
            return answerAdmin(head: head, body: body, context: context)
        }
        let request = makeRequest(head: head, body: body)
        let journal = shared.registry.journal
        let id = journal.begin(request, transport: .server)
        if head.method == .CONNECT {
            let message = "CONNECT (https through the proxy) is not supported: Understudy does not intercept TLS yet\n"
            return start(
                Reply(prepared: textResponse(501, message), outcome: .completed),
                request: request, id: id, keepAlive: false, version: head.version, context: context
            )
        }
        let keepAlive = head.isKeepAlive
        let version = head.version
        // Canned answers are rendered right here on the event loop; only closures, forwards,
        // images and proxying hop to a task.
        let pendingMatch: StubRegistry.Match?
        switch shared.registry.resolveImmediately(request) {
        case .resolved(.unmatched) where shared.configuration.proxyUnmatched != nil:
            pendingMatch = nil
        case .resolved(let resolution):
            return start(Self.reply(for: resolution, request: request), request: request, id: id, keepAlive: keepAlive, version: version, context: context)
        case .pending(let match):
            pendingMatch = match
        }
        let shared = self.shared
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        let promise = context.eventLoop.makePromise(of: Reply.self)
        promise.completeWithTask {
            guard let pendingMatch else {
                return await Self.proxy(request, shared: shared)
            }
            return Self.reply(for: await shared.registry.finish(pendingMatch, for: request, context: shared.renderContext), request: request)
        }
        promise.futureResult.whenSuccess { reply in
            guard let context = handler.value.context else {
                // The connection went away while the stub was thinking.
                return journal.finish(id, with: InteractionResult(stubName: reply.prepared.stubName, status: nil, outcome: .cancelled))
            }
            handler.value.start(reply, request: request, id: id, keepAlive: keepAlive, version: version, context: context)
        }
    }

    /// An unmatched request passed to `--proxy-unmatched`.
    private static func proxy(_ request: StubRequest, shared: ServerShared) async -> Reply {
        let nearMisses = shared.registry.nearMisses(for: request)
        do {
            let prepared = try await StubResponse.forward(to: shared.configuration.proxyUnmatched)
                .render(for: request, stubName: nil, context: shared.renderContext)
            return Reply(prepared: prepared, outcome: .completed, transport: .proxy, nearMisses: nearMisses)
        } catch {
            return Reply(prepared: textResponse(502, "\(error)\n"), outcome: .failed("\(error)"), transport: .proxy, nearMisses: nearMisses)
        }
    }

    /// How a resolution is answered: the stub's response, its failure, or the 404 report.
    private static func reply(for resolution: StubRegistry.Resolution, request: StubRequest) -> Reply {
        switch resolution {
        case .response(let prepared):
            return Reply(prepared: prepared, outcome: prepared.truncateAfter.map { .truncated(bytes: $0) } ?? .completed)
        case .failed(let prepared, let message):
            return Reply(prepared: prepared, outcome: .failed(message))
        case .unmatched(let nearMisses):
            let report = NearMiss.report(for: request, nearMisses: nearMisses) + "\n"
            return Reply(prepared: textResponse(404, report), outcome: .unmatched, nearMisses: nearMisses)
        }
    }

    /// The admin API: answered directly, never matched against stubs nor journaled.
    private func answerAdmin(head: HTTPRequestHead, body: ByteBuffer?, context: ChannelHandlerContext) {
        var headers = HeaderFields()
        for header in head.headers {
            headers.add(name: header.name, value: header.value)
        }
        let request = AdminRequest(
            method: head.method.rawValue, target: head.uri, headers: headers,
            body: body.map { Data($0.readableBytesView) } ?? Data()
        )
        let admin = shared.admin
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        let promise = context.eventLoop.makePromise(of: AdminResponse.self)
        promise.completeWithTask { await admin.handle(request) }
        let keepAlive = head.isKeepAlive
        let version = head.version
        promise.futureResult.whenSuccess { response in
            guard let context = handler.value.context else { return }
            var headers = HTTPHeaders(response.headers.map { ($0.name, $0.value) })
            if !keepAlive { headers.replaceOrAdd(name: "Connection", value: "close") }
            let status = HTTPResponseStatus(statusCode: response.status)
            context.write(handler.value.wrapOutboundOut(.head(HTTPResponseHead(version: version, status: status, headers: headers))), promise: nil)
            if head.method != .HEAD, !response.body.isEmpty {
                let buffer = context.channel.allocator.buffer(bytes: response.body)
                context.write(handler.value.wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
            }
            let channel = context.channel
            context.writeAndFlush(handler.value.wrapOutboundOut(.end(nil))).whenComplete { _ in
                if !keepAlive { channel.close(promise: nil) }
            }
        }
    }

    // MARK: - Delivery

    private func start(
        _ reply: Reply, request: StubRequest, id: Int, keepAlive: Bool, version: HTTPVersion, context: ChannelHandlerContext
    ) {
        var reply = reply
        let wire: WireResponse
        do {
            wire = try shared.wireResponse(for: reply.prepared, allocator: context.channel.allocator)
        } catch {
            let message = "stub \"\(reply.prepared.stubName ?? "")\" cannot be sent: \(error.message)"
            reply = Reply(prepared: textResponse(500, message + "\n"), outcome: .failed(message))
            wire = try! WireResponse(reply.prepared, allocator: context.channel.allocator)
        }
        delivery = Delivery(reply: reply, wire: wire, request: request, journalID: id, keepAlive: keepAlive, version: version)
        advance(context: context)
    }

    /// Carries out plan actions until one needs a timer, the response ends, or a fault holds.
    private func advance(context: ChannelHandlerContext) {
        while let current = delivery, let action = current.plan.next() {
            switch action {
            case .wait(let duration):
                context.flush()
                let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
                pendingTimer = context.eventLoop.scheduleTask(in: .nanoseconds(duration.nanoseconds)) {
                    guard let context = handler.value.context else { return }
                    handler.value.pendingTimer = nil
                    handler.value.advance(context: context)
                }
                return
            case .fail(let fault):
                current.outcome = .fault(fault)
                return performFault(fault, context: context)
            case .sendHead:
                let headers = current.wire.headers(
                    keepAlive: current.keepAlive, version: current.version, closing: current.prepared.truncateAfter != nil
                )
                context.write(wrapOutboundOut(.head(HTTPResponseHead(version: current.version, status: current.wire.status, headers: headers))), promise: nil)
                current.headSent = true
            case .sendBody(let range):
                let slice = current.wire.body.getSlice(at: current.wire.body.readerIndex + range.lowerBound, length: range.count)!
                context.write(wrapOutboundOut(.body(.byteBuffer(slice))), promise: nil)
                current.bodyBytesSent += range.count
            case .finish(let close):
                // Journaled before the last byte leaves, so a client that has its response
                // always finds it in the journal.
                if case .truncated = current.outcome { current.outcome = .completed }
                complete(current)
                if case .refusing = readState {
                    // The refused body may still be arriving: closing now would send an RST that
                    // can destroy the 413 before the client reads it. Close our side first and
                    // drop what comes for up to two seconds (a lingering close).
                    let channel = context.channel
                    context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(mode: .output, promise: nil) }
                    context.eventLoop.scheduleTask(in: .seconds(2)) { channel.close(promise: nil) }
                } else if close || !current.keepAlive {
                    let channel = context.channel
                    context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
                } else {
                    context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
                }
                return
            case .abort:
                current.outcome = .truncated(bytes: current.bodyBytesSent)
                complete(current)
                context.flush()
                return context.close(promise: nil)
            }
        }
    }

    private func performFault(_ fault: Fault, context: ChannelHandlerContext) {
        let actions = fault.wireActions(stubName: delivery?.prepared.stubName)
        let raw = try? context.pipeline.syncOperations.context(handlerType: HTTPResponseEncoder.self)
        for action in actions {
            switch action {
            case .writeRaw(let bytes):
                // Written from the encoder's position, so the bytes reach the socket unframed.
                let buffer = context.channel.allocator.buffer(bytes: bytes)
                if let raw {
                    raw.writeAndFlush(NIOAny(buffer), promise: nil)
                }
            case .close(let reset):
                if let delivery { complete(delivery) }
                if reset {
                    let channel = context.channel
                    // SO_LINGER with a zero timeout makes close() send a RST instead of a FIN.
                    if let provider = channel as? any SocketOptionProvider {
                        provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { _ in
                            channel.close(promise: nil)
                        }
                    } else {
                        channel.close(promise: nil)
                    }
                } else {
                    context.close(promise: nil)
                }
            case .hold:
                // Journaled now: the client will give up, and nothing more happens here.
                if let delivery { complete(delivery, keepDelivery: true) }
            }
        }
    }

    /// Records how the delivery ended and tells the log.
    private func complete(_ finished: Delivery, keepDelivery: Bool = false) {
        if !keepDelivery { delivery = nil }
        let journal = shared.registry.journal
        journal.finish(finished.journalID, with: InteractionResult(
            stubName: finished.prepared.stubName,
            status: finished.headSent ? finished.prepared.status : nil,
            headers: finished.headSent ? finished.prepared.headers : [:],
            bodyBytesSent: finished.bodyBytesSent,
            outcome: finished.outcome,
            nearMisses: finished.nearMisses,
            transport: finished.transport,
            responseBody: finished.prepared.body.prefix(finished.bodyBytesSent)
        ))
        if let onInteraction = shared.configuration.onInteraction, let entry = journal.interaction(id: finished.journalID) {
            onInteraction(entry)
        }
    }

    // MARK: - Connection events

    func channelInactive(context: ChannelHandlerContext) {
        pendingTimer?.cancel()
        pendingTimer = nil
        if let unfinished = delivery {
            if unfinished.outcome == .completed || { if case .truncated = unfinished.outcome { return true } else { return false } }() {
                unfinished.outcome = .cancelled
            }
            complete(unfinished)
        }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}

private func textResponse(_ status: Int, _ text: String) -> PreparedResponse {
    let body = Data(text.utf8)
    return PreparedResponse(
        status: status,
        headers: ["Content-Type": "text/plain; charset=utf-8", "Content-Length": String(body.count)],
        body: body
    )
}

extension Duration {
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
