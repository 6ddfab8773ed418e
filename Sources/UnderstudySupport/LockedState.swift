import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A value guarded by a lock: the one place the package shares mutable state between threads.
///
/// `Synchronization.Mutex` would do, but it needs macOS 15 / iOS 18; this keeps older
/// deployment targets working for test authors on Apple platforms.
///
/// On Linux the lock is an adaptive pthread mutex, which spins briefly before sleeping: a stub
/// server's event loops hold the journal's and the registry's locks only briefly for each
/// request, so a loop that finds one taken does better to spin until it is free than to sleep
/// in the kernel (a futex wait and a context switch), as a plain mutex makes it do.
///
/// ``withLock(_:)`` is inlinable, so each caller in another module gets it specialized to its
/// state rather than as a generic call through metadata and an indirect closure. That takes a
/// `public` declaration (an `@inlinable package` one is not specialized across modules), which
/// is why this lives in UnderstudySupport, a module of the package that no product exports.
public final class LockedState<State> {
    // Usable from inline code: `withLock` is inlined into its callers in other modules, so a
    // request's registry and journal lookups are not generic calls through metadata.
    #if canImport(Glibc) && !UNDERSTUDY_PORTABLE
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    #else
    @usableFromInline let lock = NSLock()
    #endif
    @usableFromInline var state: State

    /// Guards `state`.
    public init(_ state: State) {
        self.state = state
        #if canImport(Glibc) && !UNDERSTUDY_PORTABLE
        mutex = .allocate(capacity: 1)
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ADAPTIVE_NP))
        let status = pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
        precondition(status == 0, "pthread_mutex_init returned \(status)")
        #endif
    }

    deinit {
        #if canImport(Glibc) && !UNDERSTUDY_PORTABLE
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        #endif
    }

    /// Runs `body` on the state with the lock held, and returns what it returns.
    @discardableResult @inlinable
    public func withLock<R>(_ body: (inout State) throws -> R) rethrows -> R {
        #if canImport(Glibc) && !UNDERSTUDY_PORTABLE
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        #else
        lock.lock()
        defer { lock.unlock() }
        #endif
        return try body(&state)
    }
}

/// Shared between threads only when its state may be: the lock guards access, not what the
/// state's references point to.
extension LockedState: @unchecked Sendable where State: Sendable {}
