internal import NIOCore
internal import NIOHTTP1
import Understudy
import UnderstudySupport

/// The requests an event loop's HTTP/1.1 connections answered with fixed canned stubs, by the
/// bytes of the read that carried each: a read on any of the loop's connections that repeats
/// one byte for byte is answered again from what was kept, without being decoded
/// (``HTTP1FastPath``).
///
/// Image clients ask for the same URLs over and over, but seldom twice in a row on one
/// connection: a feed scrolled back, a gallery opened again, several clients (or one client's
/// several connections) fetching the same thumbnails. Kept per connection, only a client that
/// repeats its very last request would be answered this way; kept per loop, any request the
/// loop answered lately is, for one hash lookup of its bytes.
///
/// One per loop and scheme: the request a read makes depends on its bytes and the connection's
/// scheme, and on the listener's address only when the head names no host, which is never kept
/// here.
///
/// What it holds is bounded three ways:
/// - a request is kept the second time its read comes (``offer(_:)``), so a client whose every
///   request differs (a trace id in a header) fills nothing;
/// - least recently used first out past ``maxEntries`` requests or ``maxBytes`` of them;
/// - all forgotten when the last connection using it closes (``connectionClosed()``): a loop
///   with no clients holds none.
final class RepeatedReads {
    /// What answering a read again needs: its request as the stubs saw it, the match, and how
    /// its response is framed.
    struct Entry {
        let request: StubRequest
        let method: String
        let match: StubRegistry.RepeatableMatch
        let version: HTTPVersion
        let keepAlive: Bool
    }

    static let maxEntries = 1024
    static let maxBytes = 1 << 20

    private var entries = BoundedCache<ByteBuffer, Entry>(countLimit: RepeatedReads.maxEntries, costLimit: RepeatedReads.maxBytes)
    /// The quick hashes (``quickHash(_:)``) of reads offered lately: ``offeredBuckets`` buckets
    /// of ``offeredWays`` each, the newest first, 0 for none. Memory of its own rather than an
    /// array: an array in a class is checked for exclusive access and uniqueness at each offer.
    private let offered: UnsafeMutableBufferPointer<UInt64>
    static let offeredBuckets = 1024
    static let offeredWays = 8
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

    /// The request kept for a read of exactly `bytes`, if any.
    func entry(for bytes: ByteBuffer) -> Entry? {
        entries.value(for: bytes)
    }

    /// Whether a read of `bytes`, not answered from what is kept, came before: then its request
    /// is worth keeping (``keep(_:for:)``). Notes it, for the next time.
    ///
    /// Every read not answered from what is kept comes here, the reads of a client that never
    /// repeats included, so this is a quick hash into a table of fixed size rather than a `Set`
    /// hashing the whole read with SipHash. A collision only keeps a request that did not repeat.
    func offer(_ bytes: ByteBuffer) -> Bool {
        let hash = Self.quickHash(bytes)
        let first = Int(hash % UInt64(Self.offeredBuckets)) * Self.offeredWays
        let bucket = UnsafeMutableBufferPointer(rebasing: offered[first..<(first + Self.offeredWays)])
        if bucket.contains(hash) { return true }
        // The oldest way makes room.
        for way in stride(from: bucket.count - 1, to: 0, by: -1) { bucket[way] = bucket[way - 1] }
        bucket[0] = hash
        return false
    }

    /// A hash of all of `bytes`, eight at a time, never 0.
    static func quickHash(_ bytes: ByteBuffer) -> UInt64 {
        bytes.withUnsafeReadableBytes { raw in
            var hash = 0x9E37_79B9_7F4A_7C15 ^ UInt64(raw.count)
            var offset = 0
            while offset + 8 <= raw.count {
                hash = (hash ^ raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* 0xBF58_476D_1CE4_E5B9
                hash ^= hash >> 31
                offset += 8
            }
            var tail: UInt64 = 0
            while offset < raw.count {
                tail = tail << 8 | UInt64(raw[offset])
                offset += 1
            }
            hash = (hash ^ tail) &* 0x94D0_49BB_1331_11EB
            hash ^= hash >> 29
            return hash == 0 ? 1 : hash
        }
    }

    /// Keeps the request of `kept`, which `bytes` carried and nothing else, unless its head
    /// names no host.
    func keep(_ kept: RepeatCache<HTTPRequestHead>.Entry, for bytes: ByteBuffer) {
        guard kept.key.headers.contains(name: "host") else { return }
        let entry = Entry(
            request: kept.request, method: kept.method, match: kept.match, version: kept.key.version, keepAlive: kept.key.isKeepAlive
        )
        // A copy: holding the read's own buffer would keep NIO from reusing it for the next read.
        entries.insert(entry, for: ByteBuffer(bytes: bytes.readableBytesView), cost: bytes.readableBytes)
    }

    /// Forgets every request: the stubs changed since they were kept.
    func removeAll() {
        entries.removeAll()
    }
}
