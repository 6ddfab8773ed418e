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
/// here. Least recently used first out past ``maxEntries`` requests or ``maxBytes`` of them.
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

    init() {}

    /// How many requests are kept.
    var count: Int { entries.count }

    /// The request kept for a read of exactly `bytes`, if any.
    func entry(for bytes: ByteBuffer) -> Entry? {
        entries.value(for: bytes)
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
