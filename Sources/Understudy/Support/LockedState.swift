import Foundation

/// A value guarded by a lock: the one place the package shares mutable state between threads.
///
/// `Synchronization.Mutex` would do, but it needs macOS 15 / iOS 18; this keeps older
/// deployment targets working for test authors on Apple platforms.
package final class LockedState<State>: @unchecked Sendable {
    private let lock = NSLock()
    private var state: State

    package init(_ state: State) {
        self.state = state
    }

    @discardableResult
    package func withLock<R>(_ body: (inout State) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }
}
