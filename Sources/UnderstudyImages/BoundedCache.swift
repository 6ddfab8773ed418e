/// The package's one bounded cache: values by key, at most ``countLimit`` of them and at most
/// ``costLimit`` in total cost (bytes, say), the least recently used evicted first until a new
/// value fits. A value costing more than the whole limit is not stored. Every cache in the
/// package is one of these (the transcoder's bytes, files read, framed responses, HTTP/2 header
/// blocks, TLS leaves, 304/206 variants), each bounded in what grows with its input.
///
/// The entries are a doubly linked list threaded through an array by index (most recent at the
/// head), so a hit costs one hash lookup and a few index writes, insertion and eviction O(1).
/// A value type: wrap it in a lock (or keep it on one event loop) to share it.
package struct BoundedCache<Key: Hashable, Value> {
    fileprivate struct Node {
        var key: Key
        /// `nil` once the slot is free, so an evicted value is not kept alive by its slot.
        var value: Value?
        var cost: Int
        var newer: Int
        var older: Int
    }

    /// The most entries kept.
    package let countLimit: Int
    /// The most total cost kept.
    package let costLimit: Int
    /// The cost of the entries kept.
    package private(set) var totalCost = 0
    /// How many entries were evicted to make room, ever (a `removeAll` counts none).
    package private(set) var evictions = 0

    private var slots: [Key: Int] = [:]
    private var nodes: [Node] = []
    private var freeSlots: [Int] = []
    private var newest = -1
    private var oldest = -1

    /// - Parameters:
    ///   - countLimit: the most entries kept (at least 1).
    ///   - costLimit: the most total cost kept (at least 0).
    package init(countLimit: Int = .max, costLimit: Int = .max) {
        self.countLimit = max(1, countLimit)
        self.costLimit = max(0, costLimit)
    }

    /// How many entries are kept.
    package var count: Int { slots.count }

    /// The value for `key`, which becomes the most recently used.
    package mutating func value(for key: Key) -> Value? {
        guard let slot = slots[key] else { return nil }
        if slot != newest {
            unlink(slot)
            linkAsNewest(slot)
        }
        return nodes[slot].value
    }

    /// Whether `key` is kept, without counting as a use.
    package func contains(_ key: Key) -> Bool {
        slots[key] != nil
    }

    /// Stores `value` for `key` as the most recently used, evicting the least recently used
    /// entries until it fits.
    /// - Parameters:
    ///   - cost: what the value counts against ``costLimit``.
    ///   - evicted: told of each value evicted to make room (say, to close its file).
    /// - Returns: whether the value was stored (not when it costs more than the whole limit).
    @discardableResult
    package mutating func insert(_ value: Value, for key: Key, cost: Int = 1, evicted: (Value) -> Void = { _ in }) -> Bool {
        if let slot = slots[key] { remove(slot) }
        guard cost <= costLimit else { return false }
        while oldest >= 0, slots.count >= countLimit || totalCost + cost > costLimit {
            let victim = oldest
            let value = nodes[victim].value
            remove(victim)
            evictions += 1
            if let value { evicted(value) }
        }
        let node = Node(key: key, value: value, cost: cost, newer: -1, older: -1)
        let slot: Int
        if let free = freeSlots.popLast() {
            slot = free
            nodes[slot] = node
        } else {
            slot = nodes.count
            nodes.append(node)
        }
        slots[key] = slot
        totalCost += cost
        linkAsNewest(slot)
        return true
    }

    /// Forgets `key`; returns the value it had.
    @discardableResult
    package mutating func removeValue(for key: Key) -> Value? {
        guard let slot = slots[key] else { return nil }
        let value = nodes[slot].value
        remove(slot)
        return value
    }

    /// Forgets every entry.
    package mutating func removeAll() {
        slots.removeAll()
        nodes.removeAll()
        freeSlots.removeAll()
        newest = -1
        oldest = -1
        totalCost = 0
    }

    /// The keys from most to least recently used.
    package var keysByRecency: [Key] {
        var keys: [Key] = []
        var cursor = newest
        while cursor >= 0 {
            keys.append(nodes[cursor].key)
            cursor = nodes[cursor].older
        }
        return keys
    }

    /// The values kept, most recently used first.
    package var values: [Value] {
        var values: [Value] = []
        var cursor = newest
        while cursor >= 0 {
            if let value = nodes[cursor].value { values.append(value) }
            cursor = nodes[cursor].older
        }
        return values
    }

    private mutating func remove(_ slot: Int) {
        unlink(slot)
        slots[nodes[slot].key] = nil
        totalCost -= nodes[slot].cost
        nodes[slot].value = nil
        freeSlots.append(slot)
    }

    private mutating func unlink(_ slot: Int) {
        let newer = nodes[slot].newer, older = nodes[slot].older
        if newer >= 0 { nodes[newer].older = older } else { newest = older }
        if older >= 0 { nodes[older].newer = newer } else { oldest = newer }
        nodes[slot].newer = -1
        nodes[slot].older = -1
    }

    private mutating func linkAsNewest(_ slot: Int) {
        nodes[slot].older = newest
        nodes[slot].newer = -1
        if newest >= 0 { nodes[newest].newer = slot }
        newest = slot
        if oldest < 0 { oldest = slot }
    }
}

extension BoundedCache: Sendable where Key: Sendable, Value: Sendable {}
extension BoundedCache.Node: Sendable where Key: Sendable, Value: Sendable {}
