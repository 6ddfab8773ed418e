import UnderstudySupport

/// A request's key in its event loop's ``RepeatedRequests``: what the client sent, in a form two
/// identical requests share (an HTTP/1.1 read's bytes, an HTTP/2 HEADERS block).
protocol RepeatedRequestKey: Equatable {
    /// A hash of the whole key that is cheap to make (``QuickHash``), never 0; two keys that
    /// differ in any byte should differ here.
    var quickHash: UInt64 { get }
    /// About how many bytes the key holds, for ``RepeatedRequests/maxBytes``.
    var keptBytes: Int { get }
}

/// The requests an event loop's connections of one protocol and scheme were answered by fixed
/// canned stubs, by what the client sent for each (its ``RepeatedRequestKey``): a request on any
/// of the loop's connections that repeats one exactly is answered again from what was kept,
/// without being decoded, built and matched.
///
/// Image clients ask for the same URLs over and over, but seldom twice in a row on one
/// connection: a feed scrolled back, a gallery opened again, several clients (or one client's
/// several connections, or one connection's streams) fetching the same thumbnails. Kept per
/// connection, only a client that repeats its very last request would be answered this way;
/// kept per loop, any request the loop answered lately is, for one hash lookup.
///
/// One per loop, protocol and scheme: the request a key makes depends on it and the
/// connection's scheme, and on the listener's address only when it names no host, which is
/// never kept here.
///
/// What it holds is bounded three ways:
/// - a request is kept the second time its key comes (``offer(_:)``), so a client whose every
///   request differs (a trace id in a header) fills nothing;
/// - least recently used first out past ``maxEntries`` requests or ``maxBytes`` of keys;
/// - all forgotten when the last connection using it closes (``connectionClosed()``): a loop
///   with no clients holds none.
final class RepeatedRequests<Key: RepeatedRequestKey, Entry> {
    static var maxEntries: Int { 1024 }
    static var maxBytes: Int { 1 << 20 }
    static var offeredBuckets: Int { 1024 }
    static var offeredWays: Int { 8 }

    private var entries = BoundedCache<Hashed, Entry>(countLimit: RepeatedRequests.maxEntries, costLimit: RepeatedRequests.maxBytes)
    /// The quick hashes of keys offered lately: ``offeredBuckets`` buckets of ``offeredWays``
    /// each, the newest first, 0 for none. Memory of its own rather than an array: an array in
    /// a class is checked for exclusive access and uniqueness at each offer.
    private let offered: UnsafeMutableBufferPointer<UInt64>
    private var connections = 0

    init() {
        offered = .allocate(capacity: Self.offeredBuckets * Self.offeredWays)
        offered.initialize(repeating: 0)
    }

    deinit {
        offered.deallocate()
    }

    /// A connection uses these from now on.
    func connectionOpened() {
        connections += 1
    }

    /// A connection is through with these: the last one forgets them all.
    func connectionClosed() {
        connections -= 1
        guard connections == 0 else { return }
        entries.removeAll()
        offered.update(repeating: 0)
    }

    /// How many requests are kept.
    var count: Int { entries.count }

    /// The request kept for `key`, if any.
    func entry(for key: Key) -> Entry? {
        // A client that never repeats leaves the table empty: no hashing for it.
        guard entries.count > 0 else { return nil }
        return entries.value(for: Hashed(key))
    }

    /// Whether `key`, not answered from what is kept, came before: then its request is worth
    /// keeping (``keep(_:for:)``). Notes it, for the next time.
    ///
    /// Every request not answered from what is kept comes here, those of a client that never
    /// repeats included, so this is a quick hash into a table of fixed size rather than a
    /// `Set` hashing the whole key with SipHash. A collision only keeps a request that did not
    /// repeat.
    func offer(_ key: Key) -> Bool {
        let hash = key.quickHash
        let first = Int(hash % UInt64(Self.offeredBuckets)) * Self.offeredWays
        let bucket = UnsafeMutableBufferPointer(rebasing: offered[first..<(first + Self.offeredWays)])
        if bucket.contains(hash) { return true }
        // The oldest way makes room.
        for way in stride(from: bucket.count - 1, to: 0, by: -1) { bucket[way] = bucket[way - 1] }
        bucket[0] = hash
        return false
    }

    /// Keeps `entry`, the request `key` makes.
    func keep(_ entry: Entry, for key: Key) {
        entries.insert(entry, for: Hashed(key), cost: key.keptBytes)
    }

    /// Forgets every request: the stubs changed since they were kept.
    func removeAll() {
        entries.removeAll()
    }

    /// A key with its ``RepeatedRequestKey/quickHash``, which is all the table hashes: every
    /// read is looked up, and SipHash over all of its bytes (what `Key`'s own `Hashable` does)
    /// is the dearer of the two.
    struct Hashed: Hashable {
        let key: Key
        let quickHash: UInt64

        init(_ key: Key) {
            self.key = key
            self.quickHash = key.quickHash
        }

        static func == (lhs: Hashed, rhs: Hashed) -> Bool {
            lhs.quickHash == rhs.quickHash && lhs.key == rhs.key
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(quickHash)
        }
    }
}

/// A hash of byte strings made eight bytes at a time: for ``RepeatedRequestKey/quickHash``,
/// where SipHash over every request would cost more than what it saves.
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
