internal import NIOCore
internal import NIOHTTP1
import Understudy

/// The requests an event loop's HTTP/1.1 connections of one scheme answered with fixed canned
/// stubs, by the bytes of the read that carried each: a read on any of them that repeats one
/// byte for byte is answered again without being decoded (``HTTP1FastPath``).
typealias RepeatedReads = RepeatedRequests<ByteBuffer, RepeatedRead>

/// What answering a read again needs: its request as the stubs saw it, the match, and how its
/// response is framed.
struct RepeatedRead {
    let request: StubRequest
    let method: String
    let match: StubRegistry.RepeatableMatch
    let version: HTTPVersion
    let keepAlive: Bool
}

extension ByteBuffer: RepeatedRequestKey {
    /// A hash of all of the readable bytes.
    var quickHash: UInt64 {
        withUnsafeReadableBytes { bytes in
            var hash = QuickHash()
            hash.combine(bytes)
            return hash.value
        }
    }

    var keptBytes: Int { readableBytes }
}

extension RepeatedRequests where Key == ByteBuffer, Entry == RepeatedRead {
    /// Keeps the request of `kept`, which `bytes` carried and nothing else, unless its head
    /// names no host (its request would then depend on the listener's address, which a
    /// tunnelled connection does not share).
    func keep(_ kept: RepeatCache<HTTPRequestHead>.Entry, for bytes: ByteBuffer) {
        guard kept.key.headers.contains(name: "host") else { return }
        let entry = RepeatedRead(
            request: kept.request, method: kept.method, match: kept.match, version: kept.key.version, keepAlive: kept.key.isKeepAlive
        )
        // A copy: holding the read's own buffer would keep NIO from reusing it for the next read.
        keep(entry, for: ByteBuffer(bytes: bytes.readableBytesView))
    }
}
