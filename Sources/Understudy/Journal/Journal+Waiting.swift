import Foundation

extension Journal {
    /// Waits until `count` requests matching `matcher` have arrived (counting those already
    /// here), or throws ``JournalTimeoutError`` after `timeout`.
    public func wait(for matcher: RequestMatcher = .any, count: Int = 1, timeout: Duration = .seconds(5)) async throws {
        let key = UUID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let satisfied = state.withLock { state -> Bool in
                    let first = state.firstID
                    let seen = state.entries.enumerated().reduce(0) {
                        $0 + (state.isKept(first + $1.offset) && matcher.matches($1.element.request) ? 1 : 0)
                    }
                    if seen >= count { return true }
                    state.waiters[key] = Waiter(matcher: matcher, needed: count, seen: seen, continuation: continuation)
                    return false
                }
                if satisfied {
                    continuation.resume()
                    return
                }
                Task { [weak self] in
                    try? await Task.sleep(for: timeout)
                    self?.expireWaiter(key) { seen in
                        JournalTimeoutError(matcher: matcher, expected: count, seen: seen, timeout: timeout)
                    }
                }
            }
        } onCancel: {
            expireWaiter(key) { _ in CancellationError() }
        }
    }

    func expireWaiter(_ key: UUID, error: (Int) -> any Error) {
        let waiter = state.withLock { $0.waiters.removeValue(forKey: key) }
        waiter?.continuation.resume(throwing: error(waiter!.seen))
    }
}
