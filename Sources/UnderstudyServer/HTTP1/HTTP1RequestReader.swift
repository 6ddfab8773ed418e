import Foundation
internal import NIOCore
internal import NIOHTTP1
import Understudy

/// How an HTTP/1.1 connection reads requests, as a state machine of its own: events in (a read
/// arriving, a part NIO's decoder made of it, a parse error, the end of a read, the end of an
/// answer, a timer, a read asked for), actions out (``Action``), which ``HTTP1ConnectionHandler`` carries out in order with
/// ``nextAction()``. Nothing else changes it, and it calls nothing but ``decideBody``.
///
/// - **Pipelining**: parts of a request that arrive while the one before is answered wait in a
///   queue, and reading from the socket pauses until that answer has ended.
/// - **Refusals**, passed on to be answered in turn and journaled like any request: a request
///   NIO cannot parse (400; 431 for too many or too large header fields), an HTTP/1.1 request
///   with no `Host` and an origin-form target (400), a body over the limit (413), a body not
///   finished within the body timeout (408), a head begun but not finished within the head
///   timeout (closed without an answer, as nginx does). After each the connection lingers and
///   closes, and what the client sends meanwhile is dropped. Input the decoder makes nothing of
///   past a limit (``SilentInput``) closes the connection.
/// - **A body before it is read**: as the exchange decides (``decideBody``): `100 Continue`, an
///   answer at once with the body unread, or a point past which the body is not read.
/// - **Head timeout**: a connection that sends no request head within the timeout of opening,
///   or of its last answer, is closed (slowloris, idle keep-alive). A request whose head and
///   body are in is the stub's to time.
struct HTTP1RequestReader {
    /// What the connection handler does next.
    enum Action {
        /// Answers this request (the next one goes only after ``responseEnded(at:)``).
        case answer(ServerRequest)
        /// Refuses the request in hand, or a head not parsed, with `answer`, journaled like any
        /// request.
        case refuse(StubAnswer, Refused)
        /// Calls ``timerFired(at:)`` at this time (a timer set before is replaced).
        case setTimer(NIODeadline)
        case cancelTimer
        /// Reads from the socket.
        case read
        /// Closes the connection.
        case close
        /// Puts a fresh request decoder in place of the one that stopped at an `Upgrade` request.
        case renewParser
    }

    /// What a refusal refuses.
    enum Refused {
        /// A request whose head was parsed.
        case request(ArrivingRequest)
        /// A head not parsed: the bytes read of it (see ``SilentInput``).
        case partialHead(ByteBuffer)
    }

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
    /// What to do with the body of a request whose head is in and whose body is to come
    /// (``StubExchange/bodyArriving(_:to:)``): `nil` to answer at once, the body unread; else
    /// past how many bytes (if any) the body is not read.
    private let decideBody: (RequestHead) -> Int??
    private var readState = ReadState.idle
    /// Whether a request was passed on and its answer has not ended.
    private var answering = false
    private var queued = CircularBuffer<Queued>()
    private var readPending = false
    /// Since when a request head (or the rest of a body) is awaited; `nil` while a request is answered.
    private var awaitingSince: NIODeadline?
    /// When the timer set goes off; `nil` when none is set.
    private var timerDeadline: NIODeadline?
    /// Whether the request being answered asked to upgrade the connection (`Upgrade: h2c`, as
    /// java.net.http's client asks on every `http://` connection): NIOHTTP1's parser stops at
    /// such a request, expecting the protocol to change, and parses nothing more. The server
    /// answers over HTTP/1.1 and, once it has, puts a fresh parser in its place.
    private var parserStopped = false
    private var actions = CircularBuffer<Action>(initialCapacity: 4)
    /// The input read since the decoder last made a part of a request.
    private var silent = SilentInput()

    init(settings: HTTP1Settings, decideBody: @escaping (RequestHead) -> Int??) {
        self.settings = settings
        self.decideBody = decideBody
    }

    /// The next thing to do, in order; `nil` once everything the events so far asked is done.
    mutating func nextAction() -> Action? {
        actions.popFirst()
    }

    // MARK: - Events

    /// The connection is open: a head is awaited from `now`.
    mutating func opened(at now: NIODeadline) {
        awaitHead(now)
    }

    /// `bytes` were read, and go to the decoder now; it has had the reads before them.
    mutating func readArriving(_ bytes: ByteBuffer) {
        closeIfSilentTooLong()
        silent.arriving(bytes)
    }

    /// The decoder has had the reads of this turn.
    mutating func readComplete() {
        closeIfSilentTooLong()
    }

    /// Input the decoder made nothing of past the limit closes the connection, and anything
    /// read after is dropped.
    private mutating func closeIfSilentTooLong() {
        guard silent.isOverLimit else { return }
        silent.partDecoded()
        readState = .refusing
        queued.removeAll()
        actions.append(.close)
    }

    /// NIO's decoder made `part` of a request.
    mutating func partRead(_ part: HTTPServerRequestPart, at now: NIODeadline) {
        silent.partDecoded()
        if !queued.isEmpty || waitsForAnswer {
            queued.append(.part(part))
            return
        }
        handle(part, now)
    }

    /// NIO's decoder could not parse the input.
    mutating func parseFailed(_ error: HTTPParserError, at now: NIODeadline) {
        if case .refusing = readState { return }
        if case .invalidEOFState = error {
            // The client left in the middle of a request: there is no one to answer.
            return actions.append(.close)
        }
        if !queued.isEmpty || answering {
            queued.append(.error(error))
            return
        }
        refuseUnparsable(error, now)
    }

    /// The pipeline asks to read from the socket.
    mutating func readRequested() {
        if waitsForAnswer || !queued.isEmpty {
            readPending = true
        } else {
            actions.append(.read)
        }
    }

    /// The answer to the request passed on has been written in full, and the connection stays
    /// open: the next request may go.
    mutating func responseEnded(at now: NIODeadline) {
        answering = false
        if case .refusing = readState { return }
        if parserStopped {
            parserStopped = false
            actions.append(.renewParser)
        }
        awaitHead(now)
        while !waitsForAnswer, let next = queued.popFirst() {
            if case .refusing = readState { queued.removeAll(); break }
            switch next {
            case .part(let part): handle(part, now)
            case .error(let error): refuseUnparsable(error, now)
            }
        }
        if readPending, queued.isEmpty, !waitsForAnswer {
            readPending = false
            actions.append(.read)
        }
    }

    /// The timer set went off.
    mutating func timerFired(at now: NIODeadline) {
        timerDeadline = nil
        // Busy answering: the end of the answer starts the count again.
        guard !answering, let since = awaitingSince else { return }
        let receiving: Bool
        if case .receiving = readState { receiving = true } else { receiving = false }
        let timeout = receiving ? settings.bodyTimeout : settings.requestHeadTimeout
        guard now - since >= timeout else {
            return setTimer(since + timeout)
        }
        if receiving, case .receiving(let request) = readState {
            refuse(.bodyTimedOut(settings.bodyTimeout), request)
        } else if silent.bytes != nil {
            // As nginx does, the connection closes without an answer; the journal says why.
            refuse(.refused(status: 408, "request head not received within \(settings.requestHeadTimeout.prettyPrint)", silently: true), nil)
        } else {
            // Idle: nothing was begun, nothing to journal.
            actions.append(.close)
        }
    }

    // MARK: - Requests

    /// Whether the request in hand is complete and its answer not yet ended: parts arriving now
    /// belong to the next request.
    private var waitsForAnswer: Bool {
        guard answering else { return false }
        if case .receiving = readState { return false }
        return true
    }

    private mutating func handle(_ part: HTTPServerRequestPart, _ now: NIODeadline) {
        switch part {
        case .head(let parsed):
            if case .refusing = readState { return }
            let head = RequestHead(parsed)
            awaitingSince = now
            var request = ArrivingRequest(head, at: now)
            readState = .receiving(request)
            if head.declaresBody(over: settings.maxBodySize) {
                return refuse(.bodyOverLimit(settings.maxBodySize), request)
            }
            if head.version == .http1_1, !head.fields.contains(name: "host"), head.target.hasPrefix("/") {
                return refuse(.refused(status: 400, "bad request: an HTTP/1.1 request needs a Host header (RFC 9112 section 3.2)"), request)
            }
            if head.hasBody {
                guard let cutAfter = decideBody(head) else { return passOn(request, now, bodyUnread: true) }
                if let cutAfter {
                    request.cutAfter = cutAfter
                    readState = .receiving(request)
                }
            }
            // The body has its own timeout, counted from the head. The timer already set usually
            // fires no earlier, and then sets itself again for what is awaited by then.
            if timerDeadline.map({ $0 > now + settings.bodyTimeout }) ?? true {
                setTimer(now + settings.bodyTimeout)
            }
        case .body(let chunk):
            // Out of the state while it grows, so that its buffer is not shared and copied.
            guard var request = readState.takeRequest() else { return }
            switch request.append(chunk, limit: settings.maxBodySize) {
            case .taken:
                readState = .receiving(request)
            case .overLimit:
                readState = .receiving(request)
                refuse(.bodyOverLimit(settings.maxBodySize), request)
            case .cut:
                passOn(request, now, bodyUnread: true)
            }
        case .end:
            guard let request = readState.takeRequest() else { return }
            if request.head.fields.contains(name: "upgrade"),
               request.head.fields[canonicalForm: "connection"].contains(where: { $0.lowercased() == "upgrade" }) {
                parserStopped = true
            }
            passOn(request, now, bodyUnread: false)
        }
    }

    /// Passes `request` on to be answered. `bodyUnread`: the rest of its body is not read;
    /// what the client sends from now on is dropped, and the connection closes after the answer.
    private mutating func passOn(_ request: consuming ArrivingRequest, _ now: NIODeadline, bodyUnread: Bool) {
        awaitingSince = nil
        answering = true
        if bodyUnread {
            readState = .refusing
            cancelTimer()
        }
        actions.append(.answer(request.whole(at: now, bodyUnread: bodyUnread)))
    }

    private mutating func refuseUnparsable(_ error: HTTPParserError, _ now: NIODeadline) {
        let (status, message) = Self.answer(for: error, maxHeaderCount: settings.maxHeaderCount, maxHeaderBytes: Self.maxHeaderBytes)
        refuse(.refused(status: status, message), nil)
    }

    /// Refuses the request in hand (`nil`: a head not parsed), and from then on drops what the
    /// client sends.
    private mutating func refuse(_ answer: StubAnswer, _ request: ArrivingRequest?) {
        readState = .refusing
        awaitingSince = nil
        cancelTimer()
        answering = true
        actions.append(.refuse(answer, request.map(Refused.request) ?? .partialHead(silent.bytes ?? ByteBuffer())))
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

    private mutating func awaitHead(_ now: NIODeadline) {
        awaitingSince = now
        if timerDeadline == nil { setTimer(now + settings.requestHeadTimeout) }
    }

    private mutating func setTimer(_ deadline: NIODeadline) {
        timerDeadline = deadline
        actions.append(.setTimer(deadline))
    }

    private mutating func cancelTimer() {
        guard timerDeadline != nil else { return }
        timerDeadline = nil
        actions.append(.cancelTimer)
    }
}
