import Foundation
internal import NIOCore
internal import NIOHTTP1
import Understudy

/// An HTTP/1.1 connection's manners, behind NIOHTTP1's request decoder, the last handler: it
/// passes one whole ``ServerRequest`` at a time to its ``HTTP1Answerer`` and keeps order.
///
/// - **Pipelining**: parts of a request that arrive while the one before is answered wait in a
///   queue, and reading from the socket pauses until the response's writer says it has ended.
/// - **Refusals**, passed on as ``ServerRequest/refused(_:_:arrival:)`` so that they are
///   answered in turn and journaled like any request: a request NIO cannot parse (400; 431 for
///   too many or too large header fields), an HTTP/1.1 request with no `Host` and an
///   origin-form target (400, RFC 9112 §3.2), a body over the limit (413), a body not finished
///   within the body timeout (408), a head begun but not finished within the head timeout
///   (closed without an answer, as nginx does).
///   Each is followed by a lingering close: the client's further bytes are dropped for a while,
///   so that closing does not send an RST that could destroy the answer before it is read.
/// - **Head timeout**: a connection that sends no request head within the timeout of opening,
///   or of its last answer, is closed (slowloris, idle keep-alive). A request whose head and
///   body are in is the stub's to time.
final class HTTP1ConnectionHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    private enum ReadState {
        case idle
        case receiving(ArrivingRequest)
        /// A refusal is on its way: the rest of this request and anything after it is dropped.
        case refusing

        /// The request being received, moved out with `.idle` left in its place (a copy
        /// retained and released each part of its head); `nil`, changing nothing, when none is.
        mutating func takeRequest() -> ArrivingRequest? {
            switch consume self {
            case .receiving(let request):
                self = .idle
                return request
            case let other:
                self = other
                return nil
            }
        }
    }

    private enum Queued {
        case part(HTTPServerRequestPart)
        case error(HTTPParserError)
    }

    private let settings: HTTP1Settings
    private let connection: HTTP1Connection
    private let answerer: HTTP1Answerer
    private var readState = ReadState.idle
    /// Whether a request was passed on and its response has not ended.
    private var answering = false
    private var queued = CircularBuffer<Queued>()
    private var draining = false
    private var readPending = false
    private var context: ChannelHandlerContext?
    /// Since when a request head (or the rest of a body) is awaited; `nil` while a request is answered.
    private var awaitingSince: NIODeadline?
    private var timer: LoopAlarm?
    private var timerDeadline = NIODeadline.distantFuture
    /// Whether the request being answered asked to upgrade the connection (`Upgrade: h2c`, as
    /// java.net.http's client asks on every `http://` connection): NIOHTTP1's parser stops at
    /// such a request, expecting the protocol to change, and parses nothing more. The server
    /// answers over HTTP/1.1 and, once it has, puts a fresh parser in its place.
    private var parserStopped = false

    init(settings: HTTP1Settings, connection: HTTP1Connection, answerer: HTTP1Answerer) {
        self.settings = settings
        self.connection = connection
        self.answerer = answerer
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        // Weak: the answerer's writers are this handler's, and live as long.
        answerer.attach(context) { [weak self] in self?.responseEnded() }
        if context.channel.isActive { awaitHead(context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        timer?.cancel()
        timer = nil
        answerer.detach()
    }

    func channelActive(context: ChannelHandlerContext) {
        awaitHead(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        answerer.clientLeft()
        context.fireChannelInactive()
    }

    // MARK: - Reading, in order

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        connection.silentInput.partDecoded()
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
        if case .receiving = readState { return false }
        return true
    }

    func read(context: ChannelHandlerContext) {
        if waitsForAnswer || !queued.isEmpty {
            readPending = true
        } else {
            context.read()
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError else {
            return context.close(promise: nil)
        }
        if case .refusing = readState { return }
        if case .invalidEOFState = parserError {
            // The client left in the middle of a request: there is no one to answer.
            return context.close(promise: nil)
        }
        if !queued.isEmpty || answering {
            queued.append(.error(parserError))
            return
        }
        refuseUnparsable(parserError, context: context)
    }

    private func handle(_ part: HTTPServerRequestPart, context: ChannelHandlerContext) {
        switch part {
        case .head(let head):
            if case .refusing = readState { return }
            let now = context.eventLoop.now
            awaitingSince = now
            let tooLarge = ArrivingRequest.declares(head, moreThan: settings.maxBodySize)
            let hostless = head.version == .http1_1 && !head.headers.contains(name: "host") && head.uri.hasPrefix("/")
            readState = .receiving(ArrivingRequest(head, at: now))
            if tooLarge {
                return refuse(.bodyOverLimit(settings.maxBodySize), head: head, context: context)
            }
            if hostless {
                return refuse(.refused(status: 400, "bad request: an HTTP/1.1 request needs a Host header (RFC 9112 section 3.2)"), head: head, context: context)
            }
            // The body has its own timeout, counted from the head. The timer already set usually
            // fires no earlier, and then sets itself again for what is awaited by then.
            if timer == nil || timerDeadline > now + settings.bodyTimeout {
                scheduleTimer(at: now + settings.bodyTimeout, context: context)
            }
        case .body(let chunk):
            // Out of the state while it grows, so that its buffer is not shared and copied.
            guard var request = readState.takeRequest() else { return }
            guard request.append(chunk, limit: settings.maxBodySize) else {
                readState = .receiving(request)
                return refuse(.bodyOverLimit(settings.maxBodySize), head: request.head, context: context)
            }
            readState = .receiving(request)
        case .end:
            guard let request = readState.takeRequest() else { return }
            if request.head.headers.contains(name: "upgrade"),
               request.head.headers[canonicalForm: "connection"].contains(where: { $0.lowercased() == "upgrade" }) {
                parserStopped = true
            }
            awaitingSince = nil
            answering = true
            answerer.answer(request.whole(at: context.eventLoop.now), context: context)
        }
    }

    /// The response to the request passed on has been written in full, and the connection
    /// stays open: the next request may go.
    private func responseEnded() {
        answering = false
        guard let context else { return }
        if case .refusing = readState { return }
        if parserStopped {
            parserStopped = false
            renewParser(context)
        }
        awaitHead(context)
        drainQueue(context: context)
    }

    /// Replaces the stopped request parser with a fresh one (see ``parserStopped``).
    private func renewParser(_ context: ChannelHandlerContext) {
        let sync = context.pipeline.syncOperations
        guard let old = try? sync.context(handlerType: ByteToMessageHandler<HTTPRequestDecoder>.self) else { return }
        do {
            try sync.addHandler(ServerPipeline.requestDecoder(maxHeaderCount: settings.maxHeaderCount), position: .after(old.handler))
            _ = sync.removeHandler(context: old)
        } catch {
            context.close(promise: nil)
        }
    }

    private func drainQueue(context: ChannelHandlerContext) {
        // Not re-entered: an answer that ends while a queued request is handled comes back here.
        guard !draining else { return }
        draining = true
        defer { draining = false }
        while !waitsForAnswer, let next = queued.popFirst() {
            if case .refusing = readState { queued.removeAll(); break }
            switch next {
            case .part(let part): handle(part, context: context)
            case .error(let error): refuseUnparsable(error, context: context)
            }
        }
        if readPending, queued.isEmpty, !waitsForAnswer {
            readPending = false
            context.read()
        }
    }

    // MARK: - Refusals

    private func refuseUnparsable(_ error: HTTPParserError, context: ChannelHandlerContext) {
        let (status, message) = Self.answer(for: error, maxHeaderCount: settings.maxHeaderCount, maxHeaderBytes: Self.maxHeaderBytes)
        refuse(.refused(status: status, message), head: nil, context: context)
    }

    /// Passes on the refusal of the request in hand (or of the partial head read so far), and
    /// from then on drops what the client sends.
    private func refuse(_ answer: StubAnswer, head: HTTPRequestHead?, context: ChannelHandlerContext) {
        let start: Date, headTime: NIODeadline
        if case .receiving(let request) = readState {
            (start, headTime) = (request.start, request.headTime)
        } else {
            (start, headTime) = (Date(), context.eventLoop.now)
        }
        readState = .refusing
        awaitingSince = nil
        timer?.cancel()
        timer = nil
        answering = true
        let listener = settings.listener()
        let request = head.map { StubRequest(head: $0, body: nil, scheme: settings.scheme, listener: { listener }) }
            ?? StubRequest(partialHead: connection.silentInput.silentRead ?? ByteBuffer(), scheme: settings.scheme, listener: listener)
        let arrival = ServerRequest.Arrival(start: start, headTime: headTime, endTime: context.eventLoop.now)
        answerer.answer(.refused(answer, request, arrival: arrival), context: context)
    }

    /// The bytes of names and values NIO's decoder allows in one head (its default).
    static let maxHeaderBytes = NIOHTTPDecoderLimitConfiguration().maxHeaderListSize

    /// The status and text answering a request NIO could not parse.
    static func answer(for error: HTTPParserError, maxHeaderCount: Int, maxHeaderBytes: Int) -> (Int, String) {
        if case .headerOverflow = error {
            return (431, "request header fields too large: at most \(maxHeaderCount) header fields and \(maxHeaderBytes) bytes of names and values")
        }
        return (400, "bad request: \(error.debugDescription)")
    }

    // MARK: - Timeouts

    private func awaitHead(_ context: ChannelHandlerContext) {
        let now = context.eventLoop.now
        awaitingSince = now
        if timer == nil { scheduleTimer(at: now + settings.requestHeadTimeout, context: context) }
    }

    private func scheduleTimer(at deadline: NIODeadline, context: ChannelHandlerContext) {
        timer?.cancel()
        timerDeadline = deadline
        timer = connection.exchange.clock.alarm(at: deadline) { [self] in
            guard let context = self.context else { return }
            timerFired(context: context)
        }
    }

    private func timerFired(context: ChannelHandlerContext) {
        timer = nil
        // Busy answering: the end of the answer starts the count again.
        guard !answering, let since = awaitingSince else { return }
        let receiving: Bool
        if case .receiving = readState { receiving = true } else { receiving = false }
        let timeout = receiving ? settings.bodyTimeout : settings.requestHeadTimeout
        guard context.eventLoop.now - since >= timeout else {
            return scheduleTimer(at: since + timeout, context: context)
        }
        if receiving, case .receiving(let request) = readState {
            refuse(.bodyTimedOut(settings.bodyTimeout), head: request.head, context: context)
        } else if connection.silentInput.silentRead != nil {
            // As nginx does, the connection closes without an answer; the journal says why.
            let answer = StubAnswer.refused(status: 408, "request head not received within \(settings.requestHeadTimeout.prettyPrint)", silently: true)
            refuse(answer, head: nil, context: context)
        } else {
            // Idle: nothing was begun, nothing to journal.
            context.close(promise: nil)
        }
    }
}

/// What ``HTTP1ConnectionHandler`` needs to know of the server.
struct HTTP1Settings: Sendable {
    var maxBodySize: Int
    var maxHeaderCount: Int
    var requestHeadTimeout: TimeAmount
    var bodyTimeout: TimeAmount
    /// The scheme requests are matched on.
    var scheme: String
    /// `host:port` of the listener, for requests that name no host.
    var listener: @Sendable () -> String
}

extension TimeAmount {
    /// `30s`, `250ms`.
    var prettyPrint: String {
        nanoseconds % 1_000_000_000 == 0 ? "\(nanoseconds / 1_000_000_000)s" : "\(nanoseconds / 1_000_000)ms"
    }
}
