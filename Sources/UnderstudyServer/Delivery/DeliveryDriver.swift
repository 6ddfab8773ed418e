import Foundation
internal import NIOCore
import Understudy

/// Carries out one answer's ``DeliveryPlan`` against a ``ResponseWriter`` on its event loop,
/// with its waits on the loop's ``LoopClock`` (never a blocking sleep), and closes the
/// answer's journal entry with what was delivered when the plan ends, a fault ends it, or
/// ``cancel()`` says the client left.
final class DeliveryDriver {
    private let answer: StubAnswer
    private let request: StubRequest
    private let arrival: ServerRequest.Arrival
    private let responder: StubResponder
    private let writer: any ResponseWriter
    /// Where every wait of the plan waits: before the head, and between body slices.
    private let clock: LoopClock
    private var plan: DeliveryPlan
    /// The journal entry, opened when the request arrived or when the plan first waits; `nil`
    /// for an answer sent at once, which is recorded whole when it ends.
    private var journalID: Int?
    private var bodyBytesSent = 0
    private var headTime: NIODeadline?
    /// Counts the waits on ``clock``: a wake-up for an earlier one (cancelled) is ignored.
    private var pacingTicket = 0
    /// The gate the body is held at, while it is.
    private var held: (gate: Gate, ticket: Gate.Ticket)?
    /// Set once the journal entry is closed: nothing more happens.
    private var closed = false
    /// When the timer that woke this run was due, while the run goes on from it: the next wait
    /// counts from there, so timers that fire late do not slow a paced body below its rate.
    private var lastDeadline: NIODeadline?

    /// - Parameters:
    ///   - answer: what to deliver.
    ///   - request: the request answered, as journaled.
    ///   - method: the request's method, which decides whether a body is sent.
    ///   - arrival: when the request arrived.
    ///   - journalID: the entry opened when the request arrived, if it was.
    ///   - responder: records the outcome.
    ///   - writer: carries out the actions.
    ///   - clock: the clock of `writer`'s event loop, where the plan waits.
    init(
        answer: StubAnswer, request: StubRequest, method: String, arrival: ServerRequest.Arrival, journalID: Int?,
        responder: StubResponder, writer: any ResponseWriter, clock: LoopClock
    ) {
        self.answer = answer
        self.request = request
        self.arrival = arrival
        self.journalID = journalID
        self.responder = responder
        self.writer = writer
        self.clock = clock
        self.plan = answer.response.deliveryPlan(method: method, requestBodyBytes: request.body?.count ?? 0)
        if plan.announcesClose { writer.announceClose() }
    }

    /// Carries out actions until one needs a timer, the plan ends, or a fault holds.
    func run() {
        while !closed, let action = plan.next() {
            switch action {
            case .wait(let duration):
                if journalID == nil {
                    // Visible in the journal while it waits, like any request in flight.
                    journalID = responder.open(request, httpVersion: writer.httpVersion, connection: arrival.connection)
                }
                writer.flush()
                let span = TimeAmount.nanoseconds(duration.nanoseconds)
                let deadline = nextDeadline(after: span)
                // The body's slices share wake-ups on the clock's grid; a wait before the head (a
                // delay, a profile's latency) ends when it says.
                pacingTicket += 1
                let due = headTime == nil ? deadline : Self.coalesced(deadline, span: span)
                clock.wake(self, ticket: pacingTicket, at: due, deadline: deadline)
                return
            case .fail(let fault):
                // Journaled first (the fault may close the connection, which would cancel it), and
                // at once also when the fault holds the exchange (the client gives up later).
                // `goaway` answers first and ends the connection after (see ``Fault/goaway``).
                let answers = fault == .goaway
                if answers { bodyBytesSent = answer.response.body.count }
                close(.fault(fault), headSent: answers)
                _ = writer.perform(fault)
                return
            case .sendHead:
                headTime = writer.eventLoop.now
                writer.writeHead()
            case .sendBody(let range):
                // Counted first: a `limit-data` that cuts the write ends the exchange inside it.
                bodyBytesSent += range.count
                writer.writeBody(range)
            case .end(let closing):
                guard !writer.hasDataLimit else {
                    // A `limit-data` may cut the last bytes on their way (held back for the
                    // client's flow-control window): journaled once they have left, with what did.
                    let driver = NIOLoopBound(self, eventLoop: writer.eventLoop)
                    return writer.end(close: closing) { driver.value.closeAtLimit(or: .completed) }
                }
                // Journaled before the last byte leaves, so a client that has its response
                // always finds it in the journal.
                close(.completed, headSent: true)
                return writer.end(close: closing)
            case .abort:
                close(.truncated(bodyBytesSent), headSent: true)
                return writer.abort()
            case .sendInformational(let index):
                writer.writeInformational(answer.response.informational[index])
            case .limitData(let bytes):
                writer.limitData(bytes)
            case .drop(let reset):
                // Journaled first: the close that follows would otherwise cancel it.
                close(.fault(answer.response.fault ?? .disconnectAfterRequest), headSent: headTime != nil)
                return writer.drop(reset: reset)
            case .endConnection(let ending):
                close(.fault(answer.response.fault ?? .shutdownOutputAtEnd), headSent: true)
                return writer.endConnection(ending)
            case .pause(let name):
                if journalID == nil {
                    journalID = responder.open(request, httpVersion: writer.httpVersion, connection: arrival.connection)
                }
                writer.flush()
                let gate = responder.registry.gate(name)
                let driver = NIOLoopBound(self, eventLoop: writer.eventLoop)
                let eventLoop = writer.eventLoop
                let ticket = gate.arrive(bytesSent: bodyBytesSent) {
                    eventLoop.execute {
                        driver.value.held = nil
                        driver.value.lastDeadline = nil
                        driver.value.run()
                    }
                }
                if let ticket {
                    held = (gate, ticket)
                    return
                }
            }
        }
    }

    /// When a wait of `span` ends: counted from the last timer's due time when this run
    /// comes straight from it, so a timer that fired late is made up by the next one, from now
    /// otherwise. At most half a wait is made up: two slices never leave back to back, however
    /// late a timer (a stalled loop loses time rather than bursting).
    private func nextDeadline(after span: TimeAmount) -> NIODeadline {
        let now = writer.eventLoop.now
        defer { lastDeadline = nil }
        guard let lastDeadline else { return now + span }
        return max(lastDeadline + span, now + TimeAmount.nanoseconds(span.nanoseconds / 2))
    }

    /// A body slice's `deadline` rounded up to a grid of an eighth of the wait (at least 4 ms,
    /// at most half the wait), so the timers of many paced bodies fall due together and the loop
    /// wakes once for them all instead of once each (a wake-up, with its system calls, per slice).
    /// The grid grows with the wait, so a slice is late by less than an eighth of its wait (by
    /// less than 4 ms for waits under 32 ms), and slow bodies, whose waits are longest, share the most: at `slow-3g` (a
    /// slice every 320 ms) the grid is 40 ms.
    /// The next wait counts from the exact deadline, so the rate stays exact; two slices of one
    /// body still never share a wake-up.
    static func coalesced(_ deadline: NIODeadline, span: TimeAmount) -> NIODeadline {
        let wait = span.nanoseconds
        let grid = max(1, min(wait / 2, max(4_000_000, wait / 8)))
        let nanoseconds = Int64(deadline.uptimeNanoseconds)
        return .uptimeNanoseconds(UInt64((nanoseconds + grid - 1) / grid * grid))
    }

    /// The clock's wake-up for the wait `ticket`, whose exact due time was `deadline`.
    func paced(ticket: Int, deadline: NIODeadline) {
        guard ticket == pacingTicket, !closed else { return }
        lastDeadline = deadline
        run()
    }

    /// The client went away (or the server is stopping): journaled as cancelled with the bytes sent.
    func cancel() {
        pacingTicket += 1
        if let (gate, ticket) = held {
            gate.leave(ticket)
            held = nil
        }
        closeAtLimit(or: .cancelled)
    }

    /// Closes the journal entry as `ending`, or as the `limit-data` fault when the connection's
    /// limit was reached: a connection the fault closed did not lose its client. The body bytes
    /// written past the limit never reached the client, and are not counted.
    private func closeAtLimit(or ending: DeliveryReport.Ending) {
        guard let limit = writer.dataLimitReached else { return close(ending, headSent: headTime != nil) }
        if !closed { bodyBytesSent = max(0, bodyBytesSent - limit.unsent) }
        close(.fault(.limitData(limit.bytes)), headSent: headTime != nil)
    }

    private func close(_ ending: DeliveryReport.Ending, headSent: Bool) {
        guard !closed else { return }
        closed = true
        let now = writer.eventLoop.now
        var timing = Interaction.Timing(send: (arrival.endTime - arrival.headTime).duration)
        if let headTime {
            timing.wait = (headTime - arrival.endTime).duration
            timing.receive = (now - headTime).duration
        } else {
            timing.wait = (now - arrival.endTime).duration
        }
        let report = DeliveryReport(
            headSent: headSent, bodyBytesSent: bodyBytesSent, ending: ending, timing: timing, httpVersion: writer.httpVersion,
            connection: arrival.connection
        )
        responder.close(journalID, request: request, startTime: arrival.start, answer: answer, report: report)
    }
}

extension TimeAmount {
    /// The same span as a `Duration`.
    var duration: Duration { .nanoseconds(nanoseconds) }
}

extension Duration {
    /// The span in whole nanoseconds.
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
