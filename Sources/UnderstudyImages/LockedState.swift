import Foundation

/// A value guarded by a lock. `Synchronization.Mutex` would do, but needs macOS 15.
final class LockedState<State>: @unchecked Sendable {
    // @unchecked: `state` is only touched inside `withLock`, under `lock`.
    private let lock = NSLock()
    private var state: State

    init(_ state: State) { self.state = state }

    func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }
}
