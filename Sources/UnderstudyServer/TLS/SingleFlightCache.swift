import Understudy

/// A cache whose value for a key is made once even when many threads ask for it at the same
/// moment: the first asker makes it while the others wait for that one result.
///
/// A failed make is not cached; the next asker tries again. Makers run on the asking thread,
/// so a slow `make` blocks only the askers of its own key.
package final class SingleFlightCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// One key's value, behind the lock its first asker holds while making it.
    private typealias Slot = LockedState<Value?>

    private let slots = LockedState<[Key: Slot]>([:])

    package init() {}

    /// The value for `key`, made by `make` if no asker made it before.
    package func value(for key: Key, make: () throws -> Value) rethrows -> Value {
        let slot = slots.withLock { slots in
            if let slot = slots[key] { return slot }
            let slot = Slot(nil)
            slots[key] = slot
            return slot
        }
        return try slot.withLock { value in
            if let value { return value }
            let made = try make()
            value = made
            return made
        }
    }

    /// How many keys have a slot (made, being made, or failed).
    package var count: Int {
        slots.withLock { $0.count }
    }
}
