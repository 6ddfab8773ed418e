import Foundation
import NIOCore
import NIOEmbedded
import Understudy
@testable import UnderstudyServer
import XCTest

/// One event loop's wake-ups, on an `EmbeddedEventLoop` whose clock the test moves: paced body
/// slices (each waiter woken at its instant and not before, the waiters of one instant together
/// in the order they came, earlier instants first however they arrived) and connections'
/// timeouts (each alarm rung once at its time, a cancelled one never, and let go at once).
final class LoopClockTests: XCTestCase {
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
    private lazy var clock = LoopClock(eventLoop: loop)
    private let responder = StubResponder(registry: StubRegistry(), transport: .server, upstream: nil)

    /// A driver named `name` for `response`, on the clock under test.
    private func driver(_ name: String, _ response: PreparedResponse = PreparedResponse(status: 200, body: Data("x".utf8))) -> DeliveryDriver {
        let request = StubRequest(method: "GET", url: URL(string: "http://img.test/\(name)")!)
        let arrival = ServerRequest.Arrival(start: Date(), headTime: loop.now, endTime: loop.now)
        return DeliveryDriver(
            answer: StubAnswer(response: response, kind: .stub), request: request, method: "GET", arrival: arrival, journalID: nil,
            responder: responder, writer: RecordingWriter(name, on: loop, log: log), clock: clock
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
        // Two paced bodies of 3 slices at 160,000 B/s, started a millisecond apart: each slice
        // waits 100 ms, rounded up to the same instant of a 12.5 ms grid (an eighth of the
        // wait), so the two share every wake-up.
        let paced = PreparedResponse(status: 200, body: Data(count: 48_000), bandwidth: .bytesPerSecond(160_000))
        loop.advanceTime(by: .milliseconds(1))
        driver("a", paced).run()
        loop.advanceTime(by: .milliseconds(1))
        driver("b", paced).run()
        XCTAssertEqual(log.lines, ["a head@1", "b head@2"])
        XCTAssertEqual(clock.pendingInstants, 1, "both slices wait on one instant")
        loop.advanceTime(by: .milliseconds(110))
        XCTAssertEqual(log.lines.count, 2, "112 ms: the slices' instant (112.5 ms) has not come")
        loop.advanceTime(by: .milliseconds(1))
        XCTAssertEqual(log.lines.dropFirst(2), ["a body 16000@112", "b body 16000@112"])
        XCTAssertEqual(clock.pendingInstants, 1, "the next slices wait on the next instant")
        loop.advanceTime(by: .milliseconds(500))
        XCTAssertEqual(log.lines.dropFirst(4), [
            "a body 16000@212", "b body 16000@212", "a body 16000@312", "a end@312", "b body 16000@312", "b end@312",
        ])
        XCTAssertEqual(clock.pendingInstants, 0)
    }

    func testASliceIsLateByLessThanItsGridAndNeverEarly() {
        // (wait, the grid its instants fall on): an eighth of the wait, at least 4 ms, at most half.
        let cases: [(wait: TimeAmount, grid: Int64)] = [
            (.milliseconds(2), 1_000_000), (.milliseconds(20), 4_000_000), (.milliseconds(100), 12_500_000),
            (.milliseconds(320), 40_000_000), (.milliseconds(2_560), 320_000_000),
        ]
        for (wait, grid) in cases {
            for exact in [Int64(0), 1, 3_999_999, 12_500_001, 987_654_321] {
                let instant = DeliveryDriver.coalesced(.uptimeNanoseconds(UInt64(exact)), span: wait)
                let due = Int64(instant.uptimeNanoseconds)
                XCTAssertGreaterThanOrEqual(due, exact, "\(wait): never before the slice's time")
                XCTAssertLessThan(due - exact, grid, "\(wait): late by less than the grid")
                XCTAssertEqual(due % grid, 0, "\(wait): on the grid of \(grid) ns")
            }
        }
    }

    func testACancelledWaitIsNotWoken() {
        let paced = PreparedResponse(status: 200, body: Data(count: 32_000), bandwidth: .bytesPerSecond(160_000))
        let leaving = driver("leaving", paced)
        let staying = driver("staying", paced)
        leaving.run()
        staying.run()
        leaving.cancel()
        loop.advanceTime(by: .milliseconds(500))
        XCTAssertEqual(log.lines.filter { $0.hasPrefix("leaving") }, ["leaving head@0"], "the client went away")
        XCTAssertEqual(log.lines.filter { $0.hasPrefix("staying") }, ["staying head@0", "staying body 16000@100", "staying body 16000@200", "staying end@200"])
    }

    // MARK: - Alarms

    /// Sets an alarm at `milliseconds` that writes `name@now` into the log when it rings.
    @discardableResult
    private func alarm(_ name: String, at milliseconds: Int64) -> LoopAlarm {
        clock.alarm(at: at(milliseconds)) { [log, loop] in
            log.lines.append("\(name)@\(loop.now.uptimeNanoseconds / 1_000_000)")
        }
    }

    func testAlarmsRingOnceAtTheirTimeEarliestFirstWhateverTheOrderTheyWereSetIn() {
        alarm("late", at: 30_000)
        alarm("early", at: 2_000)
        alarm("middle", at: 10_000)
        loop.advanceTime(by: .milliseconds(1_999))
        XCTAssertEqual(log.lines, [], "none is due")
        loop.advanceTime(by: .milliseconds(1))
        XCTAssertEqual(log.lines, ["early@2000"])
        loop.advanceTime(by: .seconds(60))
        XCTAssertEqual(log.lines, ["early@2000", "middle@10000", "late@30000"], "each once, in time order")
        XCTAssertEqual(clock.heldAlarms, 0)
    }

    func testACancelledAlarmNeverRingsAndLetsGoOfWhatItsActionHeldAtOnce() {
        final class Connection {}
        weak var held: Connection?
        var ringing: LoopAlarm?
        do {
            let connection = Connection()
            held = connection
            ringing = clock.alarm(at: at(1_000)) { [log] in log.lines.append("rang \(ObjectIdentifier(connection))") }
        }
        alarm("other", at: 1_000)
        XCTAssertNotNil(held, "the alarm's action holds the connection")
        XCTAssertEqual(ringing?.isPending, true)
        ringing?.cancel()
        XCTAssertNil(held, "let go when cancelled, not when its time comes")
        XCTAssertEqual(ringing?.isPending, false)
        loop.advanceTime(by: .seconds(2))
        XCTAssertEqual(log.lines, ["other@1000"], "the cancelled alarm did not ring")
    }

    func testAnAlarmSetByARingingOneRingsAtItsOwnTimeAndAlarmsShareTheLoopWithDeliveries() {
        // As a connection's head timeout that finds the connection busy sets itself again.
        _ = clock.alarm(at: at(100)) { [self] in
            log.lines.append("first@\(loop.now.uptimeNanoseconds / 1_000_000)")
            alarm("again", at: 250)
        }
        wake(driver("slice"), at: 150)
        loop.advanceTime(by: .milliseconds(1_000))
        XCTAssertEqual(log.lines.filter { !$0.contains(" body") && !$0.contains(" end") }, ["first@100", "slice head@150", "again@250"])
    }

    func testManyCancelledAlarmsAreDroppedBeforeTheirTime() {
        // A server taking many short connections: each sets a 30 s timeout and cancels it.
        let live = (0..<10).map { alarm("live\($0)", at: 30_000 + Int64($0)) }
        for _ in 0..<1_000 {
            clock.alarm(at: at(30_000)) {}.cancel()
        }
        XCTAssertLessThan(clock.heldAlarms, 200, "cancelled alarms are dropped once they are most of those held")
        XCTAssertTrue(live.allSatisfy(\.isPending))
        loop.advanceTime(by: .seconds(31))
        XCTAssertEqual(log.lines.count, 10, "every live alarm rang, none of the cancelled ones")
        XCTAssertEqual(clock.heldAlarms, 0)
    }
}
