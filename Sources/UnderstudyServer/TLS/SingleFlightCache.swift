import Understudy
import UnderstudyImages
import UnderstudySupport

/// A cache whose value for a key is made once even when many threads ask for it at the same
/// moment: the first asker makes it while the others wait for that one result.
///
/// A failed make is not cached; the next asker tries again. Makers run on the asking thread,
/// so a slow `make` blocks only the askers of its own key. At most ``capacity`` keys are kept:
/// the keys come from clients (a TLS server name), so a client naming a new host in every
/// handshake must not grow the cache without end. Past the capacity the key least recently
/// asked for is forgotten (a ``BoundedCache``), and made again if asked again.
package final class SingleFlightCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// One key's value, behind the lock its first asker holds while making it.
    private typealias Slot = LockedState<Value?>

    private let slots: LockedState<BoundedCache<Key, Slot>>
    /// The most keys kept.
    package let capacity: Int

    /// - Parameter capacity: the most keys kept (at least 1).
    package init(capacity: Int = 1024) {
        self.capacity = max(1, capacity)
        self.slots = LockedState(BoundedCache(countLimit: capacity))
    }

    /// The value for `key`, made by `make` if no asker made it before.
    package func value(for key: Key, make: () throws -> Value) rethrows -> Value {
        let slot = slots.withLock { slots in
            if let slot = slots.value(for: key) { return slot }
            // A slot being made stays alive with its askers; only the cache forgets it.
            let slot = Slot(nil)
            slots.insert(slot, for: key)
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
