/// The package's one bounded cache: values by key, at most ``countLimit`` of them and at most
/// ``costLimit`` in total cost (bytes, say), the least recently used evicted first until a new
/// value fits. A value costing more than the whole limit is not stored. Every cache in the
/// package is one of these (the transcoder's bytes, files read, framed responses, HTTP/2 header
/// blocks, TLS leaves, 304/206 variants), each bounded in what grows with its input.
///
/// The entries are a doubly linked list threaded through an array by index (most recent at the
/// head), so a hit costs one hash lookup and a few index writes, insertion and eviction O(1).
/// A value type: wrap it in a lock (or keep it on one event loop) to share it.
///
/// Its members are inlinable, so a cache in another module (a loop's framed responses, say) is
/// specialized to its key and value types rather than run through generic metadata per call;
/// only a `public` declaration is specialized across modules, hence UnderstudySupport.
public struct BoundedCache<Key: Hashable, Value> {
    @usableFromInline struct Node {
        @usableFromInline var key: Key
        /// `nil` once the slot is free, so an evicted value is not kept alive by its slot.
        @usableFromInline var value: Value?
        @usableFromInline var cost: Int
        @usableFromInline var newer: Int
        @usableFromInline var older: Int

        @inlinable init(key: Key, value: Value?, cost: Int, newer: Int, older: Int) {
            self.key = key
            self.value = value
            self.cost = cost
            self.newer = newer
            self.older = older
        }
    }

    /// The most entries kept.
    public let countLimit: Int
    /// The most total cost kept.
    public let costLimit: Int
    /// The cost of the entries kept.
    @inlinable public var totalCost: Int { storedCost }
    /// How many entries were evicted to make room, ever (a `removeAll` counts none).
    @inlinable public var evictions: Int { evictionCount }

    @usableFromInline var storedCost = 0
    @usableFromInline var evictionCount = 0
    @usableFromInline var slots: [Key: Int] = [:]
    @usableFromInline var nodes: [Node] = []
    @usableFromInline var freeSlots: [Int] = []
    @usableFromInline var newest = -1
    @usableFromInline var oldest = -1

    /// - Parameters:
    ///   - countLimit: the most entries kept (at least 1).
    ///   - costLimit: the most total cost kept (at least 0).
    @inlinable
    public init(countLimit: Int = .max, costLimit: Int = .max) {
        self.countLimit = max(1, countLimit)
        self.costLimit = max(0, costLimit)
    }

    /// How many entries are kept.
    @inlinable
    public var count: Int { slots.count }

    /// The value for `key`, which becomes the most recently used.
    @inlinable
    public mutating func value(for key: Key) -> Value? {
        guard let slot = slots[key] else { return nil }
        if slot != newest {
            unlink(slot)
            linkAsNewest(slot)
        }
        return nodes[slot].value
    }

    /// Whether `key` is kept, without counting as a use.
    @inlinable
    public func contains(_ key: Key) -> Bool {
        slots[key] != nil
    }

    /// Stores `value` for `key` as the most recently used, evicting the least recently used
    /// entries until it fits.
    /// - Parameters:
    ///   - cost: what the value counts against ``costLimit``.
    ///   - evicted: told of each value evicted to make room (say, to close its file).
    /// - Returns: whether the value was stored (not when it costs more than the whole limit).
    @discardableResult
    @inlinable
    public mutating func insert(_ value: Value, for key: Key, cost: Int = 1, evicted: (Value) -> Void = { _ in }) -> Bool {
        if let slot = slots[key] { remove(slot) }
        guard cost <= costLimit else { return false }
        while oldest >= 0, slots.count >= countLimit || totalCost + cost > costLimit {
            let victim = oldest
            let value = nodes[victim].value
            remove(victim)
            evictionCount += 1
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
        storedCost += cost
        linkAsNewest(slot)
        return true
    }

    /// Forgets `key`; returns the value it had.
    @discardableResult
    @inlinable
    public mutating func removeValue(for key: Key) -> Value? {
        guard let slot = slots[key] else { return nil }
        let value = nodes[slot].value
        remove(slot)
        return value
    }

    /// Forgets every entry.
    @inlinable
    public mutating func removeAll() {
        slots.removeAll()
        nodes.removeAll()
        freeSlots.removeAll()
        newest = -1
        oldest = -1
        storedCost = 0
    }

    /// The keys from most to least recently used.
    @inlinable
    public var keysByRecency: [Key] {
        var keys: [Key] = []
        var cursor = newest
        while cursor >= 0 {
            keys.append(nodes[cursor].key)
            cursor = nodes[cursor].older
        }
        return keys
    }

    /// The values kept, most recently used first.
    @inlinable
    public var values: [Value] {
        var values: [Value] = []
        var cursor = newest
        while cursor >= 0 {
            if let value = nodes[cursor].value { values.append(value) }
            cursor = nodes[cursor].older
        }
        return values
    }

    @inlinable
    mutating func remove(_ slot: Int) {
        unlink(slot)
        slots[nodes[slot].key] = nil
        storedCost -= nodes[slot].cost
        nodes[slot].value = nil
        freeSlots.append(slot)
    }

    @inlinable
    mutating func unlink(_ slot: Int) {
        let newer = nodes[slot].newer, older = nodes[slot].older
        if newer >= 0 { nodes[newer].older = older } else { newest = older }
        if older >= 0 { nodes[older].newer = newer } else { oldest = newer }
        nodes[slot].newer = -1
        nodes[slot].older = -1
    }

    @inlinable
    mutating func linkAsNewest(_ slot: Int) {
        nodes[slot].older = newest
        nodes[slot].newer = -1
        if newest >= 0 { nodes[newest].newer = slot }
        newest = slot
        if oldest < 0 { oldest = slot }
    }
}

extension BoundedCache: Sendable where Key: Sendable, Value: Sendable {}
extension BoundedCache.Node: Sendable where Key: Sendable, Value: Sendable {}
