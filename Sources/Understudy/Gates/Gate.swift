import Foundation
import UnderstudyImages
import UnderstudySupport

/// A named gate that holds paused bodies (see ``StubResponse/paused(afterBytes:gate:)``):
/// closed until released, so a test decides when the rest of a body goes out instead of a clock.
///
/// ```swift
/// let gate = stubs.gate("first-scan")
/// // ... a client requests the paused image ...
/// try await gate.reached(count: 1)   // its first bytes are out; the rest is held
/// gate.release()                     // held bodies go on, and later ones pass
/// gate.close()                       // later ones are held again
/// ```
///
/// Over the wire the same is `GET /__admin/gates` and `POST /__admin/gates/{name}/release|close`.
/// A held request is in flight; when its client goes away, its task is cancelled or the server
/// stops, it leaves the gate and is journaled `cancelled` with the bytes sent.
public final class Gate: Sendable {
    /// Its name, as stubs give it in `pause: { gate: … }`.
    public let name: String

    private struct Holder {
        let bytesSent: Int
        let resume: @Sendable () -> Void
    }

    private struct ReachWaiter {
        let needed: Int
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var isOpen = false
        var reached = 0
        var nextTicket: UInt64 = 0
        var holders: [UInt64: Holder] = [:]
        var reachWaiters: [UUID: ReachWaiter] = [:]
    }

    private let state = LockedState(State())

    init(name: String) {
        self.name = name
    }

    /// Whether bodies pass it now.
    public var isOpen: Bool { state.withLock { $0.isOpen } }

    /// How many bodies it holds now.
    public var waitingCount: Int { state.withLock { $0.holders.count } }

    /// How many bodies have reached it so far, held or let through.
    public var reachedCount: Int { state.withLock { $0.reached } }

    /// The body bytes the bodies it holds have sent, together.
    public var bytesSentByWaiting: Int { state.withLock { $0.holders.values.reduce(0) { $0 + $1.bytesSent } } }

    /// Lets the held bodies go on, and later ones pass, until ``close()``.
    public func release() {
        let resumes = state.withLock { state -> [@Sendable () -> Void] in
            state.isOpen = true
            defer { state.holders.removeAll() }
            return state.holders.keys.sorted().compactMap { state.holders[$0]?.resume }
        }
        resumes.forEach { $0() }
    }

    /// Makes it hold the bodies that reach it from now on.
    public func close() {
        state.withLock { $0.isOpen = false }
    }

    /// Waits until `count` bodies have reached the gate (counting those that already did), or
    /// throws ``GateTimeoutError`` after `timeout`.
    /// - Parameters:
    ///   - count: how many bodies, in all, must have reached it.
    ///   - timeout: how long to wait.
    public func reached(count: Int = 1, timeout: Duration = .seconds(5)) async throws {
        let key = UUID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let satisfied = state.withLock { state -> Bool in
                    if state.reached >= count { return true }
                    state.reachWaiters[key] = ReachWaiter(needed: count, continuation: continuation)
                    return false
                }
                if satisfied { return continuation.resume() }
                Task { [weak self] in
                    try? await Task.sleep(for: timeout)
                    guard let self else { return }
                    self.expire(key) { GateTimeoutError(gate: self.name, expected: count, reached: $0, timeout: timeout) }
                }
            }
        } onCancel: {
            expire(key) { _ in CancellationError() }
        }
    }

    private func expire(_ key: UUID, error: (Int) -> any Error) {
        let (waiter, reached) = state.withLock { ($0.reachWaiters.removeValue(forKey: key), $0.reached) }
        waiter?.continuation.resume(throwing: error(reached))
    }

    // MARK: - For transports

    /// A body held at the gate, for ``leave(_:)``.
    package struct Ticket: Sendable {
        fileprivate let id: UInt64
    }

    /// A body reaches the gate after sending `bytesSent` bytes: `nil` when the gate is open (go
    /// on), else a ticket, and `resume` is called once the gate is released.
    package func arrive(bytesSent: Int, resume: @escaping @Sendable () -> Void) -> Ticket? {
        let (ticket, ready) = state.withLock { state -> (Ticket?, [CheckedContinuation<Void, any Error>]) in
            state.reached += 1
            var ready: [CheckedContinuation<Void, any Error>] = []
            for (key, waiter) in state.reachWaiters where state.reached >= waiter.needed {
                state.reachWaiters[key] = nil
                ready.append(waiter.continuation)
            }
            guard !state.isOpen else { return (nil, ready) }
            state.nextTicket += 1
            state.holders[state.nextTicket] = Holder(bytesSent: bytesSent, resume: resume)
            return (Ticket(id: state.nextTicket), ready)
        }
        ready.forEach { $0.resume() }
        return ticket
    }

    /// A held body gives up (its client left): it will not be resumed.
    package func leave(_ ticket: Ticket) {
        state.withLock { _ = $0.holders.removeValue(forKey: ticket.id) }
    }

    /// Waits at the gate from a task, after `bytesSent` body bytes.
    /// - Throws: `CancellationError` when the task is cancelled while held.
    package func pass(bytesSent: Int) async throws {
        typealias Continuation = CheckedContinuation<Void, any Error>
        let waiting = LockedState<(ticket: Ticket?, continuation: Continuation?, cancelled: Bool)>((nil, nil, false))
        // Whoever takes the continuation (release or cancellation) resumes it, once.
        let take: @Sendable () -> Continuation? = {
            waiting.withLock { state in
                defer { state.continuation = nil }
                return state.continuation
            }
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: Continuation) in
                let cancelled = waiting.withLock { state -> Bool in
                    state.continuation = continuation
                    return state.cancelled
                }
                if cancelled {
                    take()?.resume(throwing: CancellationError())
                    return
                }
                guard let held = arrive(bytesSent: bytesSent, resume: { take()?.resume() }) else {
                    take()?.resume()
                    return
                }
                let cancelledMeanwhile = waiting.withLock { state -> Bool in
                    state.ticket = held
                    return state.cancelled
                }
                if cancelledMeanwhile {
                    leave(held)
                    take()?.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            let ticket = waiting.withLock { state -> Ticket? in
                state.cancelled = true
                return state.ticket
            }
            if let ticket { leave(ticket) }
            take()?.resume(throwing: CancellationError())
        }
    }
}

/// ``Gate/reached(count:timeout:)`` gave up.
public struct GateTimeoutError: Error, Sendable, CustomStringConvertible {
    /// The gate's name.
    public let gate: String
    /// How many bodies were to reach it.
    public let expected: Int
    /// How many had.
    public let reached: Int
    /// How long it waited.
    public let timeout: Duration

    public var description: String {
        "timed out after \(timeout.compactDescription) waiting for \(expected) bod\(expected == 1 ? "y" : "ies") to reach gate \"\(gate)\"; \(reached) did"
    }
}
