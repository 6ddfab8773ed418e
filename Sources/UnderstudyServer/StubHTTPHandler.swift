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

    /// The response being delivered.
    private struct Delivery {
        var plan: DeliveryPlan
        let prepared: PreparedResponse
        let request: StubRequest
        let journalID: Int
        let keepAlive: Bool
        let version: HTTPVersion
        var outcome: Interaction.Outcome
        var transport: Interaction.Transport?
        var nearMisses: [NearMiss]
        var bodyBytesSent = 0
        var headSent = false
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
        start(Delivery(
            plan: prepared.deliveryPlan(method: request.method), prepared: prepared, request: request, journalID: id,
            keepAlive: false, version: head.version, outcome: .failed("request body over the limit"), nearMisses: []
        ), context: context)
    }

    // MARK: - Dispatch

    private func makeRequest(head: HTTPRequestHead, body: ByteBuffer?) -> StubRequest {
        var headers = HeaderFields()
        for header in head.headers {
            headers.add(name: header.name, value: header.value)
        }
        let url: URL
        let lowered = head.uri.lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://"), let absolute = URL(string: head.uri) {
            url = absolute  // forward-proxy mode: absolute-form request target
        } else {
            let listener = shared.listener
            let host = head.headers.first(name: "host") ?? "\(listener.host):\(listener.port)"
            url = URL(string: "\(shared.scheme)://\(host)\(head.uri.hasPrefix("/") ? head.uri : "/" + head.uri)")
                ?? URL(string: "\(shared.scheme)://\(listener.host):\(listener.port)/")!
        }
        return StubRequest(
            method: head.method.rawValue, url: url, headers: headers,
            body: body.map { Data($0.readableBytesView) }
        )
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
            return start(Delivery(
                plan: textResponse(501, message).deliveryPlan(method: request.method), prepared: textResponse(501, message),
                request: request, journalID: id, keepAlive: false, version: head.version, outcome: .completed, nearMisses: []
            ), context: context)
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
            return start(Self.delivery(for: resolution, request: request, id: id, keepAlive: keepAlive, version: version), context: context)
        case .pending(let match):
            pendingMatch = match
        }
        let shared = self.shared
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        let promise = context.eventLoop.makePromise(of: Delivery.self)
        promise.completeWithTask {
            guard let pendingMatch else {
                return await Self.proxy(request, id: id, keepAlive: keepAlive, version: version, shared: shared)
            }
            let resolution = await shared.registry.finish(pendingMatch, for: request, context: shared.renderContext)
            return Self.delivery(for: resolution, request: request, id: id, keepAlive: keepAlive, version: version)
        }
        promise.futureResult.whenSuccess { delivery in
            guard let context = handler.value.context else {
                // The connection went away while the stub was thinking.
                return journal.finish(id, with: InteractionResult(stubName: delivery.prepared.stubName, status: nil, outcome: .cancelled))
            }
            handler.value.start(delivery, context: context)
        }
    }

    /// An unmatched request passed to `--proxy-unmatched`.
    private static func proxy(_ request: StubRequest, id: Int, keepAlive: Bool, version: HTTPVersion, shared: ServerShared) async -> Delivery {
        let nearMisses = shared.registry.nearMisses(for: request)
        let prepared: PreparedResponse
        let outcome: Interaction.Outcome
        do {
            prepared = try await StubResponse.forward(to: shared.configuration.proxyUnmatched)
                .render(for: request, stubName: nil, context: shared.renderContext)
            outcome = .completed
        } catch {
            prepared = textResponse(502, "\(error)\n")
            outcome = .failed("\(error)")
        }
        return Delivery(
            plan: prepared.deliveryPlan(method: request.method), prepared: prepared, request: request, journalID: id,
            keepAlive: keepAlive, version: version, outcome: outcome, transport: .proxy, nearMisses: nearMisses
        )
    }

    /// How a resolution is delivered: the stub's response, its failure, or the 404 report.
    private static func delivery(
        for resolution: StubRegistry.Resolution, request: StubRequest, id: Int, keepAlive: Bool, version: HTTPVersion
    ) -> Delivery {
        func delivery(_ prepared: PreparedResponse, outcome: Interaction.Outcome, transport: Interaction.Transport? = nil, nearMisses: [NearMiss] = []) -> Delivery {
            Delivery(
                plan: prepared.deliveryPlan(method: request.method), prepared: prepared, request: request, journalID: id,
                keepAlive: keepAlive, version: version, outcome: outcome, transport: transport, nearMisses: nearMisses
            )
        }
        switch resolution {
        case .response(let prepared):
            return delivery(prepared, outcome: prepared.truncateAfter.map { .truncated(bytes: $0) } ?? .completed)
        case .failed(let prepared, let message):
            return delivery(prepared, outcome: .failed(message))
        case .unmatched(let nearMisses):
            let report = NearMiss.report(for: request, nearMisses: nearMisses) + "\n"
            return delivery(textResponse(404, report), outcome: .unmatched, nearMisses: nearMisses)
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

    private func start(_ delivery: Delivery, context: ChannelHandlerContext) {
        self.delivery = delivery
        advance(context: context)
    }

    /// Carries out plan actions until one needs a timer, the response ends, or a fault holds.
    private func advance(context: ChannelHandlerContext) {
        while var current = delivery, let action = current.plan.next() {
            delivery = current
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
                delivery = current
                return performFault(fault, context: context)
            case .sendHead:
                var headers = HTTPHeaders(current.prepared.headers.map { ($0.name, $0.value) })
                if [204, 304].contains(current.prepared.status) || (100...199).contains(current.prepared.status) {
                    headers.remove(name: "content-length")
                }
                if !current.keepAlive || current.prepared.truncateAfter != nil {
                    headers.replaceOrAdd(name: "Connection", value: "close")
                } else if current.version.major == 1, current.version.minor == 0 {
                    headers.replaceOrAdd(name: "Connection", value: "keep-alive")
                }
                let head = HTTPResponseHead(version: current.version, status: HTTPResponseStatus(statusCode: current.prepared.status), headers: headers)
                context.write(wrapOutboundOut(.head(head)), promise: nil)
                current.headSent = true
                delivery = current
            case .sendBody(let range):
                let slice = current.prepared.body[current.prepared.body.startIndex + range.lowerBound ..< current.prepared.body.startIndex + range.upperBound]
                context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: slice)))), promise: nil)
                current.bodyBytesSent += range.count
                delivery = current
            case .finish(let close):
                // Journaled before the last byte leaves, so a client that has its response
                // always finds it in the journal.
                if case .truncated = current.outcome { current.outcome = .completed }
                complete(current)
                if close || !current.keepAlive {
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
        if var unfinished = delivery {
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
