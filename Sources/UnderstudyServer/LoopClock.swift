internal import NIOCore

/// Every wake-up of one event loop's connections, on one loop timer at a time:
/// - **deliveries' waits** (``wake(_:ticket:at:deadline:)``): before the head (a delay, a
///   profile's latency) and between body slices (a network profile's rate, a stub's `bandwidth`,
///   the intervals of a body in pieces). Every slice due at one instant of the grid
///   (``DeliveryDriver/coalesced(_:span:)``) waits on that instant: hundreds of slow clients cost
///   one timer at a time, not one per slice;
/// - **connections' timeouts** (``alarm(at:_:)``): the head, body and idle timeouts, and the two
///   seconds a lingering close waits.
///
/// The loop's own timers are tasks in a heap, each with a promise, and every heap move copies a
/// task (retains, releases, value witnesses): with a timer per slice, the heap would cost more
/// than the write it wakes.
///
/// A cancelled alarm lets go of its action, and so of the connection it holds, at once; the clock
/// drops the emptied alarm when it falls due, or sooner when emptied alarms outnumber the rest
/// (a server taking many short connections). A delivery's wait is not cancelled: a wake-up for an
/// earlier wait is only ignored by its driver, which the clock holds until then (at most one
/// slice's wait).
///
/// Used only on ``eventLoop``; one per loop (see ``ServerShared/resources(for:)``).
final class LoopClock {
    /// A slice's driver, waiting for its instant.
    private struct Waiter {
        let driver: DeliveryDriver
        /// Which wait of the driver this is: a cancelled wait is not woken.
        let ticket: Int
        /// When the slice was due before rounding to the grid; the next wait counts from it.
        let deadline: NIODeadline
    }

    let eventLoop: any EventLoop
    /// The instants with waiters, earliest first, each with its waiters in the order they came.
    /// New instants almost always come last (a slice waits about as long as the one before).
    private var instants: [(due: NIODeadline, waiters: [Waiter])] = []
    /// Emptied lists of waiters, kept for the next instants to fill.
    private var spare: [[Waiter]] = []
    /// The alarms set, earliest first (the same timeout from a later start comes last).
    private var alarms: [LoopAlarm] = []
    /// How many of ``alarms`` are cancelled.
    private var cancelledAlarms = 0
    /// The loop's timer, for the earliest instant or alarm, while there is one.
    private var armed: (due: NIODeadline, callback: NIOScheduledCallback)?

    init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    /// How many instants have waiters now.
    var pendingInstants: Int { instants.count }

    /// How many alarms the clock holds, cancelled ones not yet dropped among them.
    var heldAlarms: Int { alarms.count }

    // MARK: - Deliveries

    /// Wakes `driver` at `due` (an instant of the grid), telling it `ticket` and the exact
    /// `deadline` the instant was rounded from.
    func wake(_ driver: DeliveryDriver, ticket: Int, at due: NIODeadline, deadline: NIODeadline) {
        let waiter = Waiter(driver: driver, ticket: ticket, deadline: deadline)
        let index = Self.insertionIndex(for: due, in: instants) { $0.due }
        if index > instants.startIndex, instants[index - 1].due == due {
            instants[index - 1].waiters.append(waiter)
            return
        }
        var list = spare.popLast() ?? []
        list.append(waiter)
        instants.insert((due, list), at: index)
        if index == instants.startIndex { arm() }
    }

    // MARK: - Timeouts

    /// Runs `action` on the loop at `due`, unless the returned alarm is cancelled first.
    func alarm(at due: NIODeadline, _ action: @escaping () -> Void) -> LoopAlarm {
        let alarm = LoopAlarm(due: due, action: action, clock: self)
        let index = Self.insertionIndex(for: due, in: alarms) { $0.due }
        alarms.insert(alarm, at: index)
        if index == alarms.startIndex { arm() }
        return alarm
    }

    /// Runs `action` on the loop `delay` from now, unless the returned alarm is cancelled first.
    @discardableResult
    func alarm(in delay: TimeAmount, _ action: @escaping () -> Void) -> LoopAlarm {
        alarm(at: eventLoop.now + delay, action)
    }

    /// An alarm of this clock was cancelled: once they are most of what it holds, the emptied
    /// ones go, so that a server taking many short connections does not keep one for each for
    /// the rest of its timeout.
    fileprivate func alarmCancelled() {
        cancelledAlarms += 1
        guard cancelledAlarms > 64, cancelledAlarms * 2 > alarms.count else { return }
        alarms.removeAll { !$0.isPending }
        cancelledAlarms = 0
    }

    /// Where something due at `due` goes in `list`, kept earliest first: after everything due no
    /// later. Searched from the end, where new waits and timeouts almost always go.
    private static func insertionIndex<Element>(for due: NIODeadline, in list: [Element], dueOf: (Element) -> NIODeadline) -> Int {
        var index = list.endIndex
        while index > list.startIndex, dueOf(list[index - 1]) > due {
            index -= 1
        }
        return index
    }

    // MARK: - The loop's timer

    /// The earliest instant or alarm still to come.
    private var nextDue: NIODeadline? {
        switch (instants.first?.due, alarms.first?.due) {
        case let (instant?, alarm?): min(instant, alarm)
        case let (instant, alarm): instant ?? alarm
        }
    }

    /// Sets the loop's timer for the earliest instant or alarm, unless it is set for it already.
    private func arm() {
        guard let due = nextDue else { return }
        if let armed {
            if armed.due <= due { return }
            armed.callback.cancel()
        }
        do {
            armed = (due, try eventLoop.assumeIsolated().scheduleCallback(at: due, handler: self))
        } catch {
            // The loop is shutting down: its channels, and the deliveries with them, are closing.
            armed = nil
        }
    }

    /// Wakes the waiters of every instant and rings every alarm that has come (a late timer
    /// catches up on all of them), then sets the timer for the next.
    fileprivate func fire() {
        armed = nil
        let now = eventLoop.now
        while let first = instants.first, first.due <= now {
            var list = instants.removeFirst().waiters
            for waiter in list {
                waiter.driver.paced(ticket: waiter.ticket, deadline: waiter.deadline)
            }
            list.removeAll(keepingCapacity: true)
            if spare.count < 64 { spare.append(list) }
        }
        var due = 0
        while due < alarms.count, alarms[due].due <= now { due += 1 }
        if due > 0 {
            let ringing = Array(alarms[..<due])
            alarms.removeFirst(due)
            // Counted before any rings: an action may cancel another alarm of the list.
            cancelledAlarms = max(0, cancelledAlarms - ringing.count { !$0.isPending })
            for alarm in ringing { alarm.ring() }
        }
        arm()
    }
}

extension LoopClock: NIOScheduledCallbackHandler {
    func handleScheduledCallback(eventLoop: some EventLoop) {
        fire()
    }
}

/// A connection's timeout on its loop's ``LoopClock``: its action runs once when it falls due,
/// unless ``cancel()`` comes first. Used only on the clock's loop.
final class LoopAlarm {
    /// When it rings.
    let due: NIODeadline
    private var action: (() -> Void)?
    private unowned let clock: LoopClock

    fileprivate init(due: NIODeadline, action: @escaping () -> Void, clock: LoopClock) {
        self.due = due
        self.action = action
        self.clock = clock
    }

    /// Whether it has neither rung nor been cancelled.
    var isPending: Bool { action != nil }

    /// It does not ring, and what its action holds is let go now.
    func cancel() {
        guard action != nil else { return }
        action = nil
        clock.alarmCancelled()
    }

    fileprivate func ring() {
        let action = self.action
        self.action = nil
        action?()
    }
}
