import Dispatch
import Foundation
import UnderstudySupport

/// SIGINT and SIGTERM, caught from the moment ``caught()`` returns: a signal that arrives
/// before ``wait()`` is called is kept, not lost.
///
/// A script or test that starts the server, reads its ready line and stops it at once sends its
/// signal within microseconds of that line. So the ready line is printed only once the signals
/// are caught: the sources are registered with the system (their registration handlers have
/// run), and the default action, which would end the process without stopping the server, is
/// replaced.
final class TerminationSignals: Sendable {
    /// Dispatch sources are thread-safe; they are only kept here, alive while the server runs.
    private struct Sources: @unchecked Sendable {
        let all: [any DispatchSourceSignal]
    }

    private let latch: Latch
    private let sources: Sources

    private init(sources: Sources, latch: Latch) {
        self.sources = sources
        self.latch = latch
    }

    /// Catches SIGINT and SIGTERM, returning once both sources are registered.
    static func caught() async -> TerminationSignals {
        let latch = Latch()
        var made: [any DispatchSourceSignal] = []
        for signalNumber in [SIGINT, SIGTERM] {
            // Ignored by default, so that only the source sees it; the source still does.
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { latch.fire() }
            made.append(source)
        }
        let sources = Sources(all: made)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let registered = LockedState(0)
            let count = sources.all.count
            for source in sources.all {
                source.setRegistrationHandler {
                    if registered.withLock({ $0 += 1; return $0 }) == count { continuation.resume() }
                }
                source.resume()
            }
        }
        return TerminationSignals(sources: sources, latch: latch)
    }

    /// Suspends until SIGINT or SIGTERM has arrived (at once if one already has).
    func wait() async {
        await latch.wait()
    }

    /// Whether a signal came, and who waits for one.
    private final class Latch: Sendable {
        private struct State {
            var fired = false
            var waiter: CheckedContinuation<Void, Never>?
        }

        private let state = LockedState(State())

        func fire() {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                state.fired = true
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }

        func wait() async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let fired = state.withLock { state -> Bool in
                    if !state.fired { state.waiter = continuation }
                    return state.fired
                }
                if fired { continuation.resume() }
            }
        }
    }
}
