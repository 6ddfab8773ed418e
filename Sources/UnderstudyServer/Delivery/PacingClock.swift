internal import NIOCore

/// The wake-ups of one event loop's deliveries: every wait of a ``DeliveryPlan``, before the head
/// (a delay, a profile's latency) and between body slices (a network profile's rate, a stub's
/// `bandwidth`, the intervals of a body in pieces). Every slice due at one instant of the grid
/// (``DeliveryDriver/coalesced(_:span:)``) waits on that instant, and the loop holds one timer,
/// for the earliest instant: hundreds of slow clients cost one timer at a time, not one per slice.
///
/// A waiter is held until its instant, cancelled or not (a cancelled wait is only not woken), so
/// the connections' own timeouts stay the loop's cancellable timers: a closed connection must
/// not be kept for the rest of its head timeout.
///
/// The loop's own timers are tasks in a heap, each with a promise, and every heap move copies a
/// task (retains, releases, value witnesses): with a timer per slice, the heap would cost more
/// than the write it wakes.
///
/// Used only on ``eventLoop``; one per loop (see ``ServerShared/resources(for:)``).
final class PacingClock {
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
    /// The loop's timer, for the earliest instant, while there is one.
    private var armed: (due: NIODeadline, callback: NIOScheduledCallback)?
    /// Emptied lists of waiters, kept for the next instants to fill.
    private var spare: [[Waiter]] = []

    init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    /// How many instants have waiters now.
    var pendingInstants: Int { instants.count }

    /// Wakes `driver` at `due` (an instant of the grid), telling it `ticket` and the exact
    /// `deadline` the instant was rounded from.
    func wake(_ driver: DeliveryDriver, ticket: Int, at due: NIODeadline, deadline: NIODeadline) {
        let waiter = Waiter(driver: driver, ticket: ticket, deadline: deadline)
        var index = instants.endIndex
        while index > instants.startIndex, instants[index - 1].due > due {
            index -= 1
        }
        if index > instants.startIndex, instants[index - 1].due == due {
            instants[index - 1].waiters.append(waiter)
            return
        }
        var list = spare.popLast() ?? []
        list.append(waiter)
        instants.insert((due, list), at: index)
        if index == instants.startIndex { arm() }
    }

    /// Sets the loop's timer for the earliest instant, unless it is set for it already.
    private func arm() {
        guard let first = instants.first else { return }
        if let armed {
            if armed.due <= first.due { return }
            armed.callback.cancel()
        }
        do {
            armed = (first.due, try eventLoop.assumeIsolated().scheduleCallback(at: first.due, handler: self))
        } catch {
            // The loop is shutting down: its channels, and the deliveries with them, are closing.
            armed = nil
        }
    }

    /// Wakes the waiters of every instant that has come (a late timer catches up on all of
    /// them), then sets the timer for the next.
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
        arm()
    }
}

extension PacingClock: NIOScheduledCallbackHandler {
    func handleScheduledCallback(eventLoop: some EventLoop) {
        fire()
    }
}
