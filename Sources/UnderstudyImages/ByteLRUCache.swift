import Foundation

/// A least-recently-used cache of byte buffers bounded by their total size.
///
/// Entries form a doubly linked list threaded through the dictionary by key (most recent at the
/// head), so lookup, insertion and eviction are O(1) and the whole thing stays a value type.
struct ByteLRUCache<Key: Hashable> {
    private struct Entry {
        var value: Data
        var newer: Key?
        var older: Key?
    }

    /// The most bytes the values may total.
    let capacity: Int
    private(set) var totalBytes = 0
    private(set) var evictions = 0
    private var entries: [Key: Entry] = [:]
    private var newest: Key?
    private var oldest: Key?

    init(capacity: Int) { self.capacity = max(0, capacity) }

    var count: Int { entries.count }

    /// The keys from most to least recently used.
    var keysByRecency: [Key] {
        var keys: [Key] = []
        var cursor = newest
        while let key = cursor {
            keys.append(key)
            cursor = entries[key]?.older
        }
        return keys
    }

    /// The value for `key`, which becomes the most recently used.
    mutating func value(for key: Key) -> Data? {
        guard let entry = entries[key] else { return nil }
        unlink(key)
        linkAsNewest(key, entry.value)
        return entry.value
    }

    /// Stores a value as the most recently used, evicting the least recently used entries until
    /// it fits. A value larger than the whole capacity is not stored.
    /// - Returns: Whether the value was stored.
    @discardableResult
    mutating func insert(_ value: Data, for key: Key) -> Bool {
        if entries[key] != nil { remove(key) }
        guard value.count <= capacity else { return false }
        while totalBytes + value.count > capacity, let victim = oldest {
            remove(victim)
            evictions += 1
        }
        linkAsNewest(key, value)
        totalBytes += value.count
        return true
    }

    mutating func removeAll() {
        entries.removeAll()
        newest = nil
        oldest = nil
        totalBytes = 0
    }

    private mutating func remove(_ key: Key) {
        guard let entry = entries[key] else { return }
        unlink(key)
        totalBytes -= entry.value.count
    }

    /// Takes `key` out of the list and the dictionary.
    private mutating func unlink(_ key: Key) {
        guard let entry = entries.removeValue(forKey: key) else { return }
        if let newer = entry.newer { entries[newer]?.older = entry.older } else { newest = entry.older }
        if let older = entry.older { entries[older]?.newer = entry.newer } else { oldest = entry.newer }
    }

    private mutating func linkAsNewest(_ key: Key, _ value: Data) {
        entries[key] = Entry(value: value, newer: nil, older: newest)
        if let previous = newest { entries[previous]?.newer = key }
        newest = key
        if oldest == nil { oldest = key }
    }
}
