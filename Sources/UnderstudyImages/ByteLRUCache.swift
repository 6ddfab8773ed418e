import Foundation
import UnderstudySupport

/// The transcoder's cache of encoded bytes: a ``BoundedCache`` whose entries cost their size,
/// bounded in bytes only.
typealias ByteLRUCache<Key: Hashable> = BoundedCache<Key, Data>

extension BoundedCache where Value == Data {
    /// A cache of at most `capacity` bytes.
    init(capacity: Int) {
        self.init(costLimit: capacity)
    }

    /// The most bytes the values may total.
    var capacity: Int { costLimit }

    /// The bytes of the values kept.
    var totalBytes: Int { totalCost }

    /// Stores `value`, costing its size, as the most recently used (see
    /// ``BoundedCache/insert(_:for:cost:evicted:)``).
    @discardableResult
    mutating func insert(_ value: Data, for key: Key) -> Bool {
        insert(value, for: key, cost: value.count)
    }
}
