import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Understudy

/// One connection's HTTP exchanges, behind NIOHTTP1's request decoder.
///
/// It builds the ``StubRequest``, resolves it against the registry (canned answers on the
/// event loop, anything else off it), then carries out the response's ``DeliveryPlan`` on the
/// event loop with timers (never a blocking sleep), writing the bytes a ``WireResponse`` framed.
/// Around that it keeps the connection's HTTP/1.1 manners:
/// - **Pipelining**: requests are answered one at a time, in order. Parts of a request that
///   arrive while the one before is still being answered wait in a queue, and reading from the
///   socket pauses until the answer ends.
/// - **Parse errors**: a request NIO cannot parse gets 400 (431 for too many or too large
///   header fields) naming the reason, after the answers to the requests before it, then a
///   lingering close.
/// - **Head timeout**: a connection that sends no request head within
///   ``StubServer/Configuration/requestHeadTimeout`` of opening, or of its last answer, is
///   closed (slowloris, idle keep-alive). A request whose head is in is the stub's to time.
///
/// These were NIO's pipelining handler and response encoder plus two handlers of ours; in one
/// handler, a canned answer is one pass with no re-encoding (see ``WireResponse``).
final class StubHTTPHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    private enum ReadState {
        case idle
        case receiving(HTTPRequestHead, ByteBuffer?)
        /// The body went over the limit: the 413 is on its way and the rest is ignored.
        case refusing
    }

    /// What waits for the answer in progress to end.
    private enum Queued {
        case part(HTTPServerRequestPart)
        case error(any Error)
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
        let startTime: Date
        /// The journal entry, made when the request arrived or, for an answer sent the moment it
        /// arrived, made complete when it ends (`nil` until then).
        var journalID: Int?
        let keepAlive: Bool
        let version: HTTPVersion
        var outcome: Interaction.Outcome
        let transport: Interaction.Transport?
        let nearMisses: [NearMiss]
        var bodyBytesSent = 0
        var headSent = false

        init(reply: Reply, wire: WireResponse, exchange: Exchange) {
            self.plan = reply.prepared.deliveryPlan(method: exchange.request.method)
            self.prepared = reply.prepared
            self.wire = wire
            self.request = exchange.request
            self.startTime = exchange.startTime
            self.journalID = exchange.journalID
            self.keepAlive = exchange.keepAlive
            self.version = exchange.version
            self.outcome = reply.outcome
            self.transport = reply.transport
            self.nearMisses = reply.nearMisses
        }
    }

    /// A request being answered, before its delivery starts.
    private struct Exchange {
        let request: StubRequest
        let startTime: Date
        var journalID: Int?
        let keepAlive: Bool
        let version: HTTPVersion
    }

    /// The last request this connection had answered by a fixed canned stub, to answer an
    /// identical next one without parsing and matching it again.
    private struct Repeatable {
        let head: HTTPRequestHead
        let request: StubRequest
        let match: StubRegistry.RepeatableMatch
    }

    private let shared: ServerShared
    private let wireResponses: WireResponseCache
    private var repeatable: Repeatable?
    private let silentInput: SilentInputGuard?
    private var readState = ReadState.idle
    private var delivery: Delivery?
    /// Whether an answer is underway (being decided, delivered, or the admin API's).
    private var answering = false
    private var queued = CircularBuffer<Queued>()
    private var draining = false
    private var readPending = false
    private var pendingTimer: Scheduled<Void>?
    private var context: ChannelHandlerContext?
    /// Since when a request head is awaited; `nil` while a request is in.
    private var awaitingHeadSince: NIODeadline?
    private var headTimer: Scheduled<Void>?
    /// Set once a parse error was answered: the connection only lingers until it closes.
    private var lingering: Scheduled<Void>?

    /// - Parameters:
    ///   - shared: the server's registry, settings and caches.
    ///   - wireResponses: the framed responses of this connection's event loop.
    ///   - silentInput: the guard in front of the decoder, told whenever a request part arrives.
    init(shared: ServerShared, wireResponses: WireResponseCache = WireResponseCache(), silentInput: SilentInputGuard? = nil) {
        self.shared = shared
        self.wireResponses = wireResponses
        self.silentInput = silentInput
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if context.channel.isActive { awaitHead(context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        headTimer?.cancel()
        headTimer = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        awaitHead(context)
        context.fireChannelActive()
    }

    // MARK: - Reading, in order

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        silentInput?.silentBytes = 0
        if lingering != nil { return }
        let part = unwrapInboundIn(data)
        if !queued.isEmpty || waitsForAnswer {
            queued.append(.part(part))
            return
        }
        handle(part, context: context)
    }

    /// Whether the request in hand is complete and its answer not yet ended: parts arriving now
    /// belong to the next request.
    private var waitsForAnswer: Bool {
        guard answering else { return false }
        if case .idle = readState { return true }
        return false
    }

    func read(context: ChannelHandlerContext) {
        if waitsForAnswer || !queued.isEmpty {
            readPending = true
        } else {
            context.read()
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // After the answer, the decoder reports every further read as an error: all dropped.
        if lingering != nil { return }
        guard error is HTTPParserError else {
            return context.close(promise: nil)
        }
        if !queued.isEmpty || answering {
            // Answered in turn, after the requests before it.
            queued.append(.error(error))
            return
        }
        answerParseError(error, context: context)
    }

    private func handle(_ part: HTTPServerRequestPart, context: ChannelHandlerContext) {
        switch part {
        case .head(let head):
            awaitingHeadSince = nil
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

    /// The answer in progress ended: the next request may go, and the head timeout restarts.
    private func answerEnded(context: ChannelHandlerContext) {
        answering = false
        awaitHead(context)
        drainQueue(context: context)
    }

    private func drainQueue(context: ChannelHandlerContext) {
        // Not re-entered: an answer that ends while a queued request is handled comes back here.
        guard !draining else { return }
        draining = true
        defer { draining = false }
        while !waitsForAnswer, lingering == nil, let next = queued.popFirst() {
            switch next {
            case .part(let part):
                handle(part, context: context)
            case .error(let error):
                answerParseError(error, context: context)
            }
        }
        if readPending, queued.isEmpty, !waitsForAnswer {
            readPending = false
            context.read()
        }
    }

    // MARK: - Parse errors and the head timeout

    private func answerParseError(_ error: any Error, context: ChannelHandlerContext) {
        guard let parserError = error as? HTTPParserError else { return context.close(promise: nil) }
        let (status, message) = Self.answer(
            for: parserError, maxHeaderCount: shared.configuration.maxHeaderCount, maxHeaderBytes: Self.maxHeaderBytes
        )
        let body = Data(message.utf8)
        let prepared = PreparedResponse(
            status: status,
            headers: ["Content-Type": "text/plain; charset=utf-8", "Content-Length": String(body.count)],
            body: body
        )
        let wire = try! WireResponse(prepared, allocator: context.channel.allocator)
        context.write(wrapOutboundOut(.byteBuffer(wire.head(version: .http1_1, keepAlive: false, closing: true, allocator: context.channel.allocator))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.byteBuffer(wire.body))).whenComplete { _ in
            channel.close(mode: .output, promise: nil)
        }
        // Whatever else the client sends is dropped for a while, so that closing does not send
        // an RST that could destroy the answer before the client reads it.
        lingering = context.eventLoop.scheduleTask(in: .seconds(2)) {
            channel.close(promise: nil)
        }
    }

    /// The bytes of names and values NIO's decoder allows in one head (its default).
    static let maxHeaderBytes = NIOHTTPDecoderLimitConfiguration().maxHeaderListSize

    /// The status and text answering a request NIO could not parse.
    static func answer(for error: HTTPParserError, maxHeaderCount: Int, maxHeaderBytes: Int) -> (Int, String) {
        if case .headerOverflow = error {
            return (431, "request header fields too large: at most \(maxHeaderCount) header fields and \(maxHeaderBytes) bytes of names and values\n")
        }
        return (400, "bad request: \(error.debugDescription)\n")
    }

    private func awaitHead(_ context: ChannelHandlerContext) {
        let now = context.eventLoop.now
        awaitingHeadSince = now
        if headTimer == nil { scheduleHeadTimer(at: now + .nanoseconds(shared.configuration.requestHeadTimeout.nanoseconds), context: context) }
    }

    private func scheduleHeadTimer(at deadline: NIODeadline, context: ChannelHandlerContext) {
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        headTimer = context.eventLoop.scheduleTask(deadline: deadline) {
            guard let context = handler.value.context else { return }
            handler.value.headTimerFired(context: context)
        }
    }

    private func headTimerFired(context: ChannelHandlerContext) {
        headTimer = nil
        // Busy with a request: the end of its answer starts the count again.
        guard let since = awaitingHeadSince else { return }
        let timeout = TimeAmount.nanoseconds(shared.configuration.requestHeadTimeout.nanoseconds)
        if context.eventLoop.now - since >= timeout {
            context.close(promise: nil)
        } else {
            scheduleHeadTimer(at: since + timeout, context: context)
        }
    }

    private func refuseBody(head: HTTPRequestHead) {
        guard let context else { return }
        readState = .refusing
        answering = true
        let request = makeRequest(head: head, body: nil)
        let message = "request body over the limit of \(shared.configuration.maxBodySize) bytes\n"
        let prepared = PreparedResponse(
            status: 413,
            headers: ["Content-Type": "text/plain; charset=utf-8", "Content-Length": String(message.utf8.count), "Connection": "close"],
            body: Data(message.utf8)
        )
        let exchange = Exchange(request: request, startTime: Date(), journalID: nil, keepAlive: false, version: head.version)
        start(Reply(prepared: prepared, outcome: .failed("request body over the limit")), exchange: exchange, context: context)
    }

    // MARK: - Dispatch

    private func makeRequest(head: HTTPRequestHead, body: ByteBuffer?) -> StubRequest {
        var headers = HeaderFields()
        for header in head.headers {
            headers.add(name: header.name, value: header.value)
        }
        let bodyData = body.map { Data($0.readableBytesView) }
        if head.uri.utf8.first != UInt8(ascii: "/") {
            let lowered = head.uri.prefix(8).lowercased()
            if lowered.hasPrefix("http://") || lowered.hasPrefix("https://"), let absolute = URL(string: head.uri) {
                // Forward-proxy mode: an absolute-form request target.
                return StubRequest(method: head.method.rawValue, url: absolute, headers: headers, body: bodyData)
            }
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
        answering = true
        // A byte test first: every request passes here, and few are for the admin API.
        if head.uri.utf8.starts(with: "/__admin".utf8), AdminAPI.isAdminPath(String(head.uri.prefix { $0 != "?" })) {
            return answerAdmin(head: head, body: body, context: context)
        }
        if body == nil, let last = repeatable, Self.isRepeat(head, of: last.head),
           let resolution = shared.registry.resolveAgain(last.match, for: last.request) {
            let exchange = Exchange(request: last.request, startTime: Date(), journalID: nil, keepAlive: head.isKeepAlive, version: head.version)
            return start(Self.reply(for: resolution, request: last.request), exchange: exchange, context: context)
        }
        repeatable = nil
        let request = makeRequest(head: head, body: body)
        var exchange = Exchange(request: request, startTime: Date(), journalID: nil, keepAlive: head.isKeepAlive, version: head.version)
        if head.method == .CONNECT {
            let message = "CONNECT (https through the proxy) is not supported: Understudy does not intercept TLS yet\n"
            exchange = Exchange(request: request, startTime: exchange.startTime, journalID: nil, keepAlive: false, version: head.version)
            return start(Reply(prepared: textResponse(501, message), outcome: .completed), exchange: exchange, context: context)
        }
        // Canned answers are rendered right here on the event loop and journaled once, when
        // they end; only closures, forwards, images and proxying hop to a task, and those are
        // journaled on arrival.
        let pendingMatch: StubRegistry.Match?
        var repeatableMatch: StubRegistry.RepeatableMatch?
        switch shared.registry.resolveImmediately(request, repeatable: &repeatableMatch) {
        case .resolved(.unmatched) where shared.configuration.proxyUnmatched != nil:
            pendingMatch = nil
        case .resolved(let resolution):
            if let repeatableMatch {
                repeatable = Repeatable(head: head, request: request, match: repeatableMatch)
            }
            return start(Self.reply(for: resolution, request: request), exchange: exchange, context: context)
        case .pending(let match):
            pendingMatch = match
        }
        let journal = shared.registry.journal
        let id = journal.begin(request, transport: .server)
        exchange.journalID = id
        let shared = self.shared
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        let promise = context.eventLoop.makePromise(of: Reply.self)
        promise.completeWithTask {
            guard let pendingMatch else {
                return await Self.proxy(request, shared: shared)
            }
            return Self.reply(for: await shared.registry.finish(pendingMatch, for: request, context: shared.renderContext), request: request)
        }
        promise.futureResult.whenSuccess { [exchange] reply in
            guard let context = handler.value.context else {
                // The connection went away while the stub was thinking.
                return journal.finish(id, with: InteractionResult(stubName: reply.prepared.stubName, status: nil, outcome: .cancelled))
            }
            handler.value.start(reply, exchange: exchange, context: context)
        }
    }

    /// Whether `head` asks exactly what `last` did: same method, target, version and header
    /// lines in the same order, so the request built from it would be the same.
    private static func isRepeat(_ head: HTTPRequestHead, of last: HTTPRequestHead) -> Bool {
        guard head.method == last.method, head.uri == last.uri, head.version == last.version,
              head.headers.count == last.headers.count
        else { return false }
        return zip(head.headers, last.headers).allSatisfy { $0.name == $1.name && $0.value == $1.value }
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
        let sendsBody = head.method != .HEAD
        promise.futureResult.whenSuccess { response in
            guard let context = handler.value.context else { return }
            let allocator = context.channel.allocator
            let prepared = PreparedResponse(status: response.status, headers: response.headers, body: response.body)
            let wire: WireResponse
            do throws(WireResponse.InvalidHeader) {
                wire = try WireResponse(prepared, allocator: allocator)
            } catch {
                wire = try! WireResponse(textResponse(500, "admin response cannot be sent: \(error.message)\n"), allocator: allocator)
            }
            context.write(handler.value.wrapOutboundOut(.byteBuffer(wire.head(version: version, keepAlive: keepAlive, closing: false, allocator: allocator))), promise: nil)
            if sendsBody, wire.body.readableBytes > 0 {
                context.write(handler.value.wrapOutboundOut(.byteBuffer(wire.body)), promise: nil)
            }
            if keepAlive {
                context.flush()
                handler.value.answerEnded(context: context)
            } else {
                let channel = context.channel
                handler.value.flushThen(context) { channel.close(promise: nil) }
            }
        }
    }

    // MARK: - Delivery

    private func start(_ reply: Reply, exchange: Exchange, context: ChannelHandlerContext) {
        var reply = reply
        let wire: WireResponse
        do {
            wire = try wireResponses.response(for: reply.prepared, allocator: context.channel.allocator)
        } catch {
            let message = "stub \"\(reply.prepared.stubName ?? "")\" cannot be sent: \(error.message)"
            reply = Reply(prepared: textResponse(500, message + "\n"), outcome: .failed(message))
            wire = try! WireResponse(reply.prepared, allocator: context.channel.allocator)
        }
        delivery = Delivery(reply: reply, wire: wire, exchange: exchange)
        advance(context: context)
    }

    /// Carries out plan actions until one needs a timer, the response ends, or a fault holds.
    private func advance(context: ChannelHandlerContext) {
        while let current = delivery, let action = current.plan.next() {
            switch action {
            case .wait(let duration):
                if current.journalID == nil {
                    // Visible in the journal while it waits, like any request in flight.
                    current.journalID = shared.registry.journal.begin(current.request, transport: .server)
                }
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
                let head = current.wire.head(
                    version: current.version, keepAlive: current.keepAlive, closing: current.prepared.truncateAfter != nil,
                    allocator: context.channel.allocator
                )
                context.write(wrapOutboundOut(.byteBuffer(head)), promise: nil)
                current.headSent = true
            case .sendBody(let range):
                if let file = current.wire.file {
                    let region = FileRegion(fileHandle: file.handle, readerIndex: range.lowerBound, endIndex: range.upperBound)
                    // The file stays open until this write is done, whatever the cache does meanwhile.
                    let written = context.eventLoop.makePromise(of: Void.self)
                    written.futureResult.whenComplete { _ in withExtendedLifetime(file) {} }
                    context.write(wrapOutboundOut(.fileRegion(region)), promise: written)
                } else {
                    let slice = current.wire.body.getSlice(at: current.wire.body.readerIndex + range.lowerBound, length: range.count)!
                    context.write(wrapOutboundOut(.byteBuffer(slice)), promise: nil)
                }
                current.bodyBytesSent += range.count
            case .finish(let close):
                // Journaled before the last byte leaves, so a client that has its response
                // always finds it in the journal.
                if case .truncated = current.outcome { current.outcome = .completed }
                complete(current)
                let channel = context.channel
                if case .refusing = readState {
                    // The refused body may still be arriving: closing now would send an RST that
                    // can destroy the 413 before the client reads it. Close our side first and
                    // drop what comes for up to two seconds (a lingering close).
                    flushThen(context) { channel.close(mode: .output, promise: nil) }
                    context.eventLoop.scheduleTask(in: .seconds(2)) { channel.close(promise: nil) }
                } else if close || !current.keepAlive {
                    flushThen(context) { channel.close(promise: nil) }
                } else {
                    context.flush()
                    answerEnded(context: context)
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

    /// Flushes, then runs `body` once everything written so far has left.
    private func flushThen(_ context: ChannelHandlerContext, _ body: @escaping @Sendable () -> Void) {
        context.writeAndFlush(wrapOutboundOut(.byteBuffer(context.channel.allocator.buffer(capacity: 0)))).whenComplete { _ in body() }
    }

    private func performFault(_ fault: Fault, context: ChannelHandlerContext) {
        let actions = fault.wireActions(stubName: delivery?.prepared.stubName)
        for action in actions {
            switch action {
            case .writeRaw(let bytes):
                context.writeAndFlush(wrapOutboundOut(.byteBuffer(context.channel.allocator.buffer(bytes: bytes))), promise: nil)
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
        let result = InteractionResult(
            stubName: finished.prepared.stubName,
            status: finished.headSent ? finished.prepared.status : nil,
            headers: finished.headSent ? finished.prepared.headers : [:],
            bodyBytesSent: finished.bodyBytesSent,
            outcome: finished.outcome,
            nearMisses: finished.nearMisses,
            transport: finished.transport,
            responseBody: finished.prepared.body.prefix(finished.bodyBytesSent)
        )
        let id: Int
        if let existing = finished.journalID {
            journal.finish(existing, with: result)
            id = existing
        } else {
            id = journal.record(finished.request, transport: .server, startTime: finished.startTime, result: result)
            finished.journalID = id
        }
        if let onInteraction = shared.configuration.onInteraction, let entry = journal.interaction(id: id) {
            onInteraction(entry)
        }
    }

    // MARK: - Connection events

    func channelInactive(context: ChannelHandlerContext) {
        pendingTimer?.cancel()
        pendingTimer = nil
        headTimer?.cancel()
        headTimer = nil
        lingering?.cancel()
        if let unfinished = delivery {
            if unfinished.outcome == .completed || { if case .truncated = unfinished.outcome { return true } else { return false } }() {
                unfinished.outcome = .cancelled
            }
            complete(unfinished)
        }
        context.fireChannelInactive()
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
