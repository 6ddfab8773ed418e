import Foundation
import NIOCore
import NIOEmbedded
import Understudy
@testable import UnderstudyServer
import XCTest

/// One event loop's wake-ups of paced body slices, on an `EmbeddedEventLoop` whose clock the
/// test moves: each waiter woken at its instant and not before, the waiters of one instant
/// together in the order they came, earlier instants first however they arrived.
final class PacingClockTests: XCTestCase {
    /// What the drivers did, each line `name what@milliseconds` of the loop's clock.
    private final class Log {
        var lines: [String] = []
    }

    /// Carries out a delivery by writing down when each step happened.
    private final class RecordingWriter: ResponseWriter {
        let eventLoop: any EventLoop
        private let name: String
        private let log: Log

        init(_ name: String, on eventLoop: any EventLoop, log: Log) {
            self.name = name
            self.eventLoop = eventLoop
            self.log = log
        }

        private func record(_ what: String) {
            log.lines.append("\(name) \(what)@\(eventLoop.now.uptimeNanoseconds / 1_000_000)")
        }

        func writeHead() { record("head") }
        func writeBody(_ range: Range<Int>) { record("body \(range.count)") }
        func flush() {}
        func end(close: Bool) { record("end") }
        func abort() { record("abort") }
        func perform(_ fault: Fault) -> Bool { record("\(fault)"); return false }
    }

    private let loop = EmbeddedEventLoop()
    private let log = Log()
    private lazy var clock = PacingClock(eventLoop: loop)
    private let responder = StubResponder(registry: StubRegistry(), transport: .server, upstream: nil)

    /// A driver named `name` for `response`, on the clock under test.
    private func driver(_ name: String, _ response: PreparedResponse = PreparedResponse(status: 200, body: Data("x".utf8))) -> DeliveryDriver {
        let request = StubRequest(method: "GET", url: URL(string: "http://img.test/\(name)")!)
        let arrival = ServerRequest.Arrival(start: Date(), headTime: loop.now, endTime: loop.now)
        return DeliveryDriver(
            answer: StubAnswer(response: response, kind: .stub), request: request, method: "GET", arrival: arrival, journalID: nil,
            responder: responder, writer: RecordingWriter(name, on: loop, log: log), pacing: clock
        )
    }

    /// `milliseconds` after the loop's start.
    private func at(_ milliseconds: Int64) -> NIODeadline {
        .uptimeNanoseconds(UInt64(milliseconds) * 1_000_000)
    }

    /// Asks the clock to wake `driver`, whose plan has not started, at `milliseconds`, with
    /// ticket 0 (the current one of a driver that has not waited yet): woken, it writes its
    /// whole unpaced response, so its log lines say when.
    private func wake(_ driver: DeliveryDriver, at milliseconds: Int64) {
        clock.wake(driver, ticket: 0, at: at(milliseconds), deadline: at(milliseconds))
    }

    /// The names woken so far, each with the millisecond it was woken at, in order.
    private var woken: [String] {
        log.lines.filter { $0.contains(" head@") }.map { $0.replacingOccurrences(of: " head", with: "") }
    }

    func testAWaiterIsWokenAtItsInstantAndNotBefore() {
        wake(driver("a"), at: 10)
        XCTAssertEqual(clock.pendingInstants, 1)
        loop.advanceTime(by: .milliseconds(9))
        XCTAssertEqual(woken, [], "its instant has not come")
        loop.advanceTime(by: .milliseconds(1))
        XCTAssertEqual(log.lines, ["a head@10", "a body 1@10", "a end@10"])
        XCTAssertEqual(clock.pendingInstants, 0)
        loop.advanceTime(by: .milliseconds(100))
        XCTAssertEqual(woken, ["a@10"], "woken once")
    }

    func testTheWaitersOfOneInstantShareItAndWakeInTheOrderTheyCame() {
        for name in ["b", "a", "c"] {
            wake(driver(name), at: 8)
        }
        XCTAssertEqual(clock.pendingInstants, 1, "one instant for all three")
        loop.advanceTime(by: .milliseconds(7))
        XCTAssertEqual(woken, [])
        loop.advanceTime(by: .milliseconds(1))
        XCTAssertEqual(woken, ["b@8", "a@8", "c@8"])
        XCTAssertEqual(clock.pendingInstants, 0)
    }

    func testInstantsAreWokenEarliestFirstWhateverTheOrderTheyArrivedIn() {
        wake(driver("a"), at: 20)
        wake(driver("b"), at: 10)
        wake(driver("c"), at: 15)
        wake(driver("d"), at: 30)
        wake(driver("e"), at: 15)
        XCTAssertEqual(clock.pendingInstants, 4)
        loop.advanceTime(by: .milliseconds(10))
        XCTAssertEqual(woken, ["b@10"], "the earliest, though it came after a later one")
        XCTAssertEqual(clock.pendingInstants, 3)
        loop.advanceTime(by: .milliseconds(5))
        XCTAssertEqual(woken, ["b@10", "c@15", "e@15"])
        loop.advanceTime(by: .milliseconds(100))
        XCTAssertEqual(woken, ["b@10", "c@15", "e@15", "a@20", "d@30"])
        XCTAssertEqual(clock.pendingInstants, 0)
    }

    func testInstantsAlreadyDueAreWokenOnTheLoopsNextTurnEarliestFirst() {
        loop.advanceTime(by: .milliseconds(50))
        wake(driver("later"), at: 40)
        wake(driver("late"), at: 20)
        XCTAssertEqual(woken, [], "not from inside the call")
        XCTAssertEqual(clock.pendingInstants, 2)
        loop.run()
        // (`EmbeddedEventLoop` sets its clock back to a past timer's due time when it runs it.)
        XCTAssertEqual(woken.map { $0.prefix { $0 != "@" } }, ["late", "later"])
        XCTAssertEqual(clock.pendingInstants, 0)
    }

    func testPacedBodiesShareTheirWakeUpsAndEachNextSliceWaitsForItsOwnInstant() {
        // Two paced bodies of 3 slices at 10,000 B/s, started a millisecond apart: each slice
        // waits 100 ms, rounded up to the same 4 ms instant, so the two share every wake-up.
        let paced = PreparedResponse(status: 200, body: Data(count: 3_000), bandwidth: .bytesPerSecond(10_000))
        loop.advanceTime(by: .milliseconds(1))
        driver("a", paced).run()
        loop.advanceTime(by: .milliseconds(1))
        driver("b", paced).run()
        XCTAssertEqual(log.lines, ["a head@1", "b head@2"])
        XCTAssertEqual(clock.pendingInstants, 1, "both slices wait on one instant")
        loop.advanceTime(by: .milliseconds(101))
        XCTAssertEqual(log.lines.count, 2, "103 ms: the slices' instant has not come")
        loop.advanceTime(by: .milliseconds(1))
        XCTAssertEqual(log.lines.dropFirst(2), ["a body 1000@104", "b body 1000@104"])
        XCTAssertEqual(clock.pendingInstants, 1, "the next slices wait on the next instant")
        loop.advanceTime(by: .milliseconds(500))
        XCTAssertEqual(log.lines.dropFirst(4), [
            "a body 1000@204", "b body 1000@204", "a body 1000@304", "a end@304", "b body 1000@304", "b end@304",
        ])
        XCTAssertEqual(clock.pendingInstants, 0)
    }

    func testACancelledWaitIsNotWoken() {
        let paced = PreparedResponse(status: 200, body: Data(count: 2_000), bandwidth: .bytesPerSecond(10_000))
        let leaving = driver("leaving", paced)
        let staying = driver("staying", paced)
        leaving.run()
        staying.run()
        leaving.cancel()
        loop.advanceTime(by: .milliseconds(500))
        XCTAssertEqual(log.lines.filter { $0.hasPrefix("leaving") }, ["leaving head@0"], "the client went away")
        XCTAssertEqual(log.lines.filter { $0.hasPrefix("staying") }, ["staying head@0", "staying body 1000@100", "staying body 1000@200", "staying end@200"])
    }
}
