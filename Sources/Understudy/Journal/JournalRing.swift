/// The journal's records, oldest first: a ring buffer that takes each record by move.
///
/// A `Deque`'s `append` borrows its element and copies it into place, and a record copied is
/// every one of its fields retained, then released with the original: for every request a
/// server answers. Here the record is moved into its slot, and leaves it only when dropped.
/// Copying the ring itself (a reader taking the records out of the journal's lock) shares its
/// storage, as any Swift collection does.
struct JournalRing: RandomAccessCollection, Sendable {
    /// The slots (at least one), empty outside `head..<head + count` (modulo their number). As
    /// many as were reserved, not rounded up: a journal bounded to fill 26,000 slots rotates
    /// through 26,000, not 32,768.
    private var slots: ContiguousArray<JournalRecord?>
    /// The slot of the oldest record.
    private var head = 0
    private(set) var count = 0

    init() {
        slots = [nil]
    }

    /// How many records fit before the ring grows.
    var capacity: Int { slots.count }

    var startIndex: Int { 0 }
    var endIndex: Int { count }

    /// The record at `position`, `0` the oldest; read and updated in place.
    subscript(position: Int) -> JournalRecord {
        _read {
            precondition(position >= 0 && position < count, "journal position out of range")
            // Borrowed where it is: reading a field (`bytes`, `outcome`) copies no record.
            yield slots[slot(position)]!
        }
        _modify {
            precondition(position >= 0 && position < count, "journal position out of range")
            // Modified where it is, never copied.
            yield &slots[slot(position)]!
        }
    }

    /// Makes room for `capacity` records without growing again.
    mutating func reserveCapacity(_ capacity: Int) {
        if capacity > slots.count { grow(to: capacity) }
    }

    /// Adds `record` as the newest.
    mutating func append(_ record: consuming JournalRecord) {
        // Full, and not reserved for more: twice the room, as any growing collection.
        if count == slots.count { grow(to: slots.count * 2) }
        slots[slot(count)] = consume record
        count += 1
    }

    /// Drops the `dropped` oldest records.
    mutating func removeFirst(_ dropped: Int) {
        precondition(dropped >= 0 && dropped <= count, "dropping more records than the journal holds")
        for _ in 0..<dropped {
            slots[head] = nil
            head = head + 1 == slots.count ? 0 : head + 1
        }
        count -= dropped
    }

    mutating func removeAll(keepingCapacity: Bool) {
        if keepingCapacity {
            removeFirst(count)
        } else {
            self = JournalRing()
        }
    }

    private func slot(_ position: Int) -> Int {
        let slot = head + position
        return slot < slots.count ? slot : slot - slots.count
    }

    /// Moves the records, oldest first, into `size` slots.
    private mutating func grow(to size: Int) {
        var larger = ContiguousArray<JournalRecord?>(repeating: nil, count: size)
        for position in 0..<count {
            larger[position] = slots[slot(position)].take()
        }
        slots = larger
        head = 0
    }
}
