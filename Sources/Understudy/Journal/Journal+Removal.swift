import Foundation

extension Journal {
    /// Removes the entry with this id (``Interaction/id``), as WireMock's
    /// `DELETE /__admin/requests/{id}` does; later entries keep their ids.
    ///
    /// ```swift
    /// stubs.journal.remove(id: entry.id)
    /// ```
    /// - Returns: whether the entry was kept until now.
    @discardableResult
    public func remove(id: Int) -> Bool {
        let watchers = state.withLock { state -> [CheckedContinuation<Int, Never>]? in
            guard id >= state.firstID, id < state.nextID, state.removed.insert(id).inserted else { return nil }
            return state.changed()
        }
        guard let watchers else { return false }
        Self.resume(watchers, at: version)
        return true
    }

    /// Removes the entries whose request matches `matcher`, as WireMock's
    /// `POST /__admin/requests/remove` does.
    /// - Returns: the entries removed, oldest first.
    @discardableResult
    public func remove(matching matcher: RequestMatcher) -> [Interaction] {
        // Matched outside the lock, as ``interactions`` reads; an entry dropped meanwhile is
        // left out of the answer.
        let matching = interactions.filter { matcher.matches($0.request) }
        guard !matching.isEmpty else { return [] }
        let (removed, watchers) = state.withLock { state -> ([Interaction], [CheckedContinuation<Int, Never>]) in
            let removed = matching.filter { $0.id >= state.firstID && state.removed.insert($0.id).inserted }
            return (removed, removed.isEmpty ? [] : state.changed())
        }
        Self.resume(watchers, at: version)
        return removed
    }
}
