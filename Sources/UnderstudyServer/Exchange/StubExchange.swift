import Foundation
internal import NIOCore
internal import NIOHTTP1
import Understudy

/// Where an exchange's answer goes: an HTTP/1.1 connection (``HTTP1Connection``) or an HTTP/2
/// stream (``HTTP2Stream``). The target only translates: it points its protocol's writer at the
/// response.
protocol ExchangeTarget: AnyObject {
    /// Whether the client is still there to answer: an answer made on a task may come after it left.
    var isAnswerable: Bool { get }
    /// The writer that frames `wire`, the response of `answer`, for this protocol. `refused`
    /// when the request is answered before it was whole (the rest of it must not be read as a
    /// next request).
    func writer(for wire: WireResponse, of answer: StubAnswer, refused: Bool) -> any ResponseWriter
    /// Holds the driver now delivering, so that a client leaving cancels it.
    func delivering(_ driver: DeliveryDriver)
    /// Says `100 Continue` to a request that asked whether to send its body.
    func sendContinue()
    /// Where an answer of the admin API goes.
    var adminWriter: any AdminResponseWriter { get }
    /// Holds the admin answer now under way, so that a client leaving cancels it.
    func answering(_ admin: AdminExchange)
}

/// How a request is answered, the same for HTTP/1.1 and HTTP/2: what is done with a body before
/// it is read, the admin API's requests handed to it, and a stub request built from its head,
/// the decision (``StubResponder``, or the loop's ``DecisionCache`` for a repeat), canned
/// answers delivered at once and the rest on a task, refusals, and the delivery: the wire
/// response (a 500 naming the stub when its response cannot be sent) carried out by a
/// ``DeliveryDriver``, which journals it. One per connection, on its event loop; the protocol's
/// adapter hands it whole requests and gets back frames to write (``ExchangeTarget``).
final class StubExchange {
    let responder: StubResponder
    private let admin: AdminAPI
    let eventLoop: any EventLoop
    /// `HTTP/1.1` or `HTTP/2`, for the journal.
    let httpVersion: Interaction.HTTPVersion
    private let origin: ConnectionOrigin
    private let wireResponses: WireResponseCache
    /// The loop's clock, for the connection's timeouts as well as the deliveries' waits.
    let clock: LoopClock
    private let fileChecks: FileCheckTurn
    private let decisions: DecisionCache
    /// The connection the requests come on, which numbers them.
    private let connection: ServerConnection
    private let allocator: ByteBufferAllocator

    init(
        shared: ServerShared, origin: ConnectionOrigin, eventLoop: any EventLoop, allocator: ByteBufferAllocator, httpVersion: Interaction.HTTPVersion,
        connection: ServerConnection = ServerConnection(index: 0)
    ) {
        self.connection = connection
        let resources = shared.resources(for: eventLoop)
        self.responder = shared.responder
        self.admin = shared.admin
        self.origin = origin
        self.eventLoop = eventLoop
        self.allocator = allocator
        self.httpVersion = httpVersion
        self.wireResponses = resources.wireResponses
        self.clock = resources.clock
        self.fileChecks = resources.fileChecks
        self.decisions = resources.decisions
    }

    /// `scheme` of the connection's requests.
    var scheme: String { origin.scheme }

    /// The request `head` (and `body`) asks, as the stubs see it.
    func request(_ head: RequestHead, body: ByteBuffer?) -> StubRequest {
        StubRequest(head: head, body: body, scheme: origin.scheme, listener: origin.authority)
    }

    // MARK: - Answering

    /// What to do with the body of `head`, whose body is still to come: a request that asked
    /// `Expect: 100-continue` is told to send it (the target's ``ExchangeTarget/sendContinue()``),
    /// or not, as the stub its head matches says (``StubRegistry/BodyHandling``).
    /// - Returns: `nil` when the request is to be answered at once, its body unread; else
    ///   past how many bytes of body the rest is not read, if there is such a point.
    func bodyArriving(_ head: RequestHead, to target: some ExchangeTarget) -> Int?? {
        // The admin API reads every body it is sent; the stubs have no say.
        let handling = AdminExchange.isAdmin(head.target)
            ? StubRegistry.BodyHandling.standard : responder.registry.bodyHandling(forHead: self.request(head, body: nil))
        if head.expectsContinue {
            switch handling.expectContinue {
            case nil: target.sendContinue()
            case .ignore: break
            case .refuse: return nil
            }
        }
        return .some(handling.cutAfter)
    }

    /// Answers a request: the admin API's through an ``AdminExchange``; any other again from
    /// the stub that answered it before when the loop's
    /// ``DecisionCache`` kept its decision, else as the stubs decide; delivered at once when
    /// canned, else once a task has rendered it.
    /// - Parameter bodyUnread: whether the rest of the request's body was left unread (the
    ///   connection or stream is closed after the answer).
    func answer(_ head: RequestHead, body: ByteBuffer?, arrival: ServerRequest.Arrival, bodyUnread: Bool = false, to target: some ExchangeTarget) {
        if AdminExchange.isAdmin(head.target) {
            guard target.isAnswerable else { return }
            // Never matched against stubs, nor journaled, nor counted among the connection's exchanges.
            return target.answering(AdminExchange.start(head, body: body, admin: admin, writer: target.adminWriter))
        }
        let arrival = numbered(arrival)
        let method = head.method
        let key = body == nil ? DecisionKey(scheme: origin.scheme, head: head) : nil
        if let key, let entry = decisions.entry(for: key) {
            let answer = responder.answerAgain(entry.match, for: entry.request, fileCheck: fileChecks)
            fileChecks.endWithTurn(of: eventLoop)
            if let answer {
                return deliverNumbered(answer, request: entry.request, method: method, arrival: arrival, refused: bodyUnread, to: target)
            }
            decisions.removeAll()
        }
        var request = self.request(head, body: body)
        var match: StubRegistry.RepeatableMatch?
        let keeping = key.map { $0.namesHost && decisions.offer($0) } ?? false
        let decision = responder.decide(request, keepingRepeat: keeping, repeatable: &match, fileCheck: fileChecks)
        fileChecks.endWithTurn(of: eventLoop)
        switch decision {
        case .answer(let answer):
            if let match, let key {
                request = request.packingHeadersForTheJournal()
                decisions.keep(DecisionCache.Entry(request: request, match: match), for: key)
            }
            deliverNumbered(answer, request: request, method: method, arrival: arrival, refused: bodyUnread, to: target)
        case .pending(let pending):
            answerLater(pending, request: request, method: method, arrival: arrival, bodyUnread: bodyUnread, to: target)
        }
    }

    /// Answers a request refused before any stub saw it (too large, too slow, malformed),
    /// journaled like any other with what was read of it.
    func refuse(_ answer: StubAnswer, request: StubRequest, arrival: ServerRequest.Arrival, to target: some ExchangeTarget) {
        deliverNumbered(answer, request: request, method: request.method, arrival: numbered(arrival), refused: true, to: target)
    }

    /// Journals a request refused without an answer (an HTTP/2 stream reset as malformed):
    /// what was read of it (`UNKNOWN /` without a `head`) and why, among the connection's
    /// exchanges like any other.
    func journalUnanswered(_ answer: StubAnswer, head: RequestHead?, start: Date?) {
        let request = head.map { self.request($0, body: nil) } ?? StubRequest(partialHead: ByteBuffer(), scheme: origin.scheme, listener: origin.authority())
        let start = start ?? Date()
        let now = eventLoop.now
        let arrival = numbered(ServerRequest.Arrival(start: start, headTime: now, endTime: now))
        let report = DeliveryReport(
            headSent: false, bodyBytesSent: 0, ending: .fault(.connectionReset), httpVersion: httpVersion, connection: arrival.connection
        )
        responder.close(nil, request: request, startTime: start, answer: answer, report: report)
    }

    /// A closure, codec or upstream renders the answer on a task; the request is in the
    /// journal (in flight) meanwhile.
    private func answerLater(
        _ pending: StubResponder.Pending, request: StubRequest, method: String, arrival: ServerRequest.Arrival, bodyUnread: Bool,
        to target: any ExchangeTarget
    ) {
        let id = responder.open(request, httpVersion: httpVersion, connection: arrival.connection)
        let responder = self.responder
        let httpVersion = self.httpVersion
        let bound = NIOLoopBound((exchange: self, target: target), eventLoop: eventLoop)
        let promise = eventLoop.makePromise(of: StubAnswer.self)
        promise.completeWithTask { await responder.answer(pending) }
        promise.futureResult.whenSuccess { answer in
            let (exchange, target) = bound.value
            guard target.isAnswerable else {
                // The client went away while the stub was thinking.
                let report = DeliveryReport(headSent: false, bodyBytesSent: 0, ending: .cancelled, httpVersion: httpVersion)
                responder.close(id, request: request, startTime: arrival.start, answer: answer, report: report)
                return
            }
            exchange.deliverNumbered(answer, request: request, method: method, arrival: arrival, journalID: id, refused: bodyUnread, to: target)
        }
    }

    // MARK: - Delivering

    /// Delivers `answer`, made for the request rather than by the stubs (a `CONNECT` refused),
    /// to `target`, as its ``DeliveryPlan`` says; journaled when it ends.
    func deliver(_ answer: StubAnswer, request: StubRequest, method: String, arrival: ServerRequest.Arrival, to target: some ExchangeTarget) {
        deliverNumbered(answer, request: request, method: method, arrival: numbered(arrival), to: target)
    }

    /// `arrival` with its place among the connection's exchanges.
    private func numbered(_ arrival: ServerRequest.Arrival) -> ServerRequest.Arrival {
        var arrival = arrival
        arrival.connection = connection.nextExchange()
        return arrival
    }

    /// Delivers `answer` for a request already ``numbered(_:)``.
    /// - Parameters:
    ///   - journalID: the entry opened when the request arrived, if it was.
    ///   - refused: whether the request was answered before it was whole (refused, or its
    ///     body left unread): nothing more is read of the connection or stream.
    private func deliverNumbered(
        _ answer: StubAnswer, request: StubRequest, method: String, arrival: ServerRequest.Arrival, journalID: Int? = nil,
        refused: Bool = false, to target: some ExchangeTarget
    ) {
        guard target.isAnswerable else { return }
        var answer = answer
        let wire: WireResponse
        do {
            wire = try wireResponses.response(for: answer.response, allocator: allocator)
        } catch {
            answer = Self.unsendable(answer, error)
            wire = Self.plainWire(answer.response, allocator: allocator)
        }
        let driver = DeliveryDriver(
            answer: answer, request: request, method: method, arrival: arrival, journalID: journalID, responder: responder,
            writer: target.writer(for: wire, of: answer, refused: refused), clock: clock
        )
        target.delivering(driver)
        driver.run()
    }

    /// The answer in place of one whose response cannot be sent (a header a stub file set that
    /// HTTP cannot carry): a 500 that names the stub and why.
    static func unsendable(_ answer: StubAnswer, _ error: WireResponse.InvalidHeader) -> StubAnswer {
        let message = "stub \"\(answer.response.stubName ?? "")\" cannot be sent: \(error.message)"
        return StubAnswer(response: .text(status: 500, message + "\n"), kind: .failed(message))
    }

    /// `response` framed, when it is one of ours, whose headers are always valid.
    private static func plainWire(_ response: PreparedResponse, allocator: ByteBufferAllocator) -> WireResponse {
        do {
            return try WireResponse(response, allocator: allocator)
        } catch {
            preconditionFailure("the server's own response has an invalid header: \(error.message)")
        }
    }
}
