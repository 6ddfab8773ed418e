internal import NIOCore
internal import NIOHTTP1
import Understudy
import UnderstudySupport

/// The server's one cache of decisions: what the stubs decided for requests of an event loop's
/// connections, by request head, so that a request that repeats one exactly is answered again
/// from the same stub without being built and matched anew (``StubExchange/answer(_:body:arrival:to:)``).
///
/// Image clients ask for the same URLs over and over, though seldom twice in a row on one
/// connection: a feed scrolled back, a gallery opened again, several clients fetching the same
/// thumbnails. One table per loop, shared by its HTTP/1.1 connections and HTTP/2 streams alike,
/// catches a repeat from any of them for one hash lookup.
///
/// An entry is never invalidated here. It holds a ``StubRegistry/RepeatableMatch``, stamped
/// with the registry's version; the registry moves its version on whenever what a request
/// matches could change (a stub added or removed, a scenario's step, the global delay) and
/// refuses a match of another version, and a file behind a stub is checked each time its
/// rendering is reused. A stale entry is found stale when it is used, whatever happened in
/// between and in whatever order; then every entry is (they are all older), and all go.
///
/// What it holds is bounded two ways:
/// - a request is kept the second time its head comes (``offer(_:)``), so a client whose every
///   request differs (a trace id in a header) fills nothing;
/// - least recently used first out past ``maxEntries`` requests or ``maxBytes`` of heads.
final class DecisionCache {
    /// A request as the stubs saw it, and the match that answers it again.
    struct Entry {
        let request: StubRequest
        let match: StubRegistry.RepeatableMatch
    }

    static var maxEntries: Int { 1024 }
    static var maxBytes: Int { 1 << 20 }
    static var offeredBuckets: Int { 1024 }
    static var offeredWays: Int { 8 }

    private var entries = BoundedCache<DecisionKey, Entry>(countLimit: DecisionCache.maxEntries, costLimit: DecisionCache.maxBytes)
    /// The quick hashes of heads offered lately: ``offeredBuckets`` buckets of ``offeredWays``
    /// each, the newest first, 0 for none. Memory of its own rather than an array: an array in
    /// a class is checked for exclusive access and uniqueness at each offer.
    private let offered: UnsafeMutableBufferPointer<UInt64>

    init() {
        offered = .allocate(capacity: Self.offeredBuckets * Self.offeredWays)
        offered.initialize(repeating: 0)
    }

    deinit {
        offered.deallocate()
    }

    /// How many requests are kept.
    var count: Int { entries.count }

    /// The request kept for `key`, if any.
    func entry(for key: DecisionKey) -> Entry? {
        // A client that never repeats leaves the table empty: no lookup for it.
        guard entries.count > 0 else { return nil }
        return entries.value(for: key)
    }

    /// Whether `key`, not answered from what is kept, came before: then its decision is worth
    /// keeping (``keep(_:for:)``). Notes it, for the next time.
    ///
    /// Every request decided in full comes here, those of a client that never repeats
    /// included, so this is a lookup of the key's quick hash in a table of fixed size. A
    /// collision only keeps a request that did not repeat.
    func offer(_ key: DecisionKey) -> Bool {
        let hash = key.quickHash
        let first = Int(hash % UInt64(Self.offeredBuckets)) * Self.offeredWays
        let bucket = UnsafeMutableBufferPointer(rebasing: offered[first..<(first + Self.offeredWays)])
        if bucket.contains(hash) { return true }
        // The oldest way makes room.
        for way in stride(from: bucket.count - 1, to: 0, by: -1) { bucket[way] = bucket[way - 1] }
        bucket[0] = hash
        return false
    }

    /// Keeps `entry`, the decision for `key`.
    func keep(_ entry: Entry, for key: DecisionKey) {
        entries.insert(entry, for: key, cost: key.keptBytes)
    }

    /// Forgets every decision: one was found stale, and the others are no newer.
    func removeAll() {
        entries.removeAll()
    }
}

/// A request head as a key of ``DecisionCache``: equal when the scheme, method, target and the
/// header fields, in order, are the same bytes. Two equal keys build the same ``StubRequest``,
/// since the head names its host (``namesHost``).
struct DecisionKey: Hashable {
    let scheme: String
    let head: RequestHead
    /// A hash of the whole key, cheap to make, never 0. `Hashable` uses only this: every
    /// request is hashed, and SipHash over all of its fields is the dearer of the two.
    let quickHash: UInt64

    init(scheme: String, head: RequestHead) {
        self.scheme = scheme
        self.head = head
        var hash = QuickHash()
        hash.combine(scheme)
        hash.combine(head.method)
        hash.combine(head.target)
        for field in head.fields {
            hash.combine(field.name)
            hash.combine(field.value)
        }
        quickHash = hash.value
    }

    /// Whether the head names its host: else its request depends on the listener's address,
    /// which a tunnelled connection does not share, and it is not kept.
    var namesHost: Bool { head.fields.contains(name: "host") }

    /// About how many bytes the key holds, for ``DecisionCache/maxBytes``.
    var keptBytes: Int {
        head.fields.reduce(head.target.utf8.count) { $0 + $1.name.utf8.count + $1.value.utf8.count }
    }

    static func == (lhs: DecisionKey, rhs: DecisionKey) -> Bool {
        guard lhs.quickHash == rhs.quickHash, lhs.scheme == rhs.scheme, lhs.head.method == rhs.head.method, lhs.head.target == rhs.head.target,
              lhs.head.fields.count == rhs.head.fields.count
        else { return false }
        return zip(lhs.head.fields, rhs.head.fields).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(quickHash)
    }
}

/// A hash of byte strings made eight bytes at a time, for ``DecisionKey/quickHash``.
struct QuickHash {
    private var state: UInt64 = 0x9E37_79B9_7F4A_7C15

    /// Adds `bytes`, and their length, so that `ab` then `c` differs from `a` then `bc`.
    mutating func combine(_ bytes: UnsafeRawBufferPointer) {
        var hash = state ^ UInt64(bytes.count) &* 0xFF51_AFD7_ED55_8CCD
        var offset = 0
        while offset + 8 <= bytes.count {
            hash = (hash ^ bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* 0xBF58_476D_1CE4_E5B9
            hash ^= hash >> 31
            offset += 8
        }
        var tail: UInt64 = 0
        while offset < bytes.count {
            tail = tail << 8 | UInt64(bytes[offset])
            offset += 1
        }
        hash = (hash ^ tail) &* 0x94D0_49BB_1331_11EB
        state = hash ^ hash >> 29
    }

    /// Adds the UTF-8 of `string`.
    mutating func combine(_ string: String) {
        string.withUTF8Bytes { combine($0) }
    }

    /// The hash, never 0.
    var value: UInt64 { state == 0 ? 1 : state }
}

extension String {
    /// Calls `body` with the string's UTF-8 bytes: in place for a native string, else copied.
    func withUTF8Bytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        if let result = utf8.withContiguousStorageIfAvailable({ body(UnsafeRawBufferPointer($0)) }) { return result }
        return Array(utf8).withUnsafeBytes(body)
    }
}
