internal import NIOCore
internal import NIOHTTP1
import Understudy

/// A request's key for ``RepeatCache``: two requests with keys that repeat each other would be
/// built into the same ``StubRequest``.
protocol RepeatKey {
    /// Whether `self` asks exactly what `kept` did.
    func repeats(_ kept: Self) -> Bool
}

/// The last request of a connection that a fixed canned stub answered, kept to answer an
/// identical next one from the same stub without building and matching it anew (what a
/// keep-alive client asking for one image over and over costs), and when to keep one
/// (``RepeatBackoff``).
///
/// HTTP/1.1 keys a request by its head (``HTTP1FastPath`` holds its cache, and looks a decoded
/// request up in it: ``entry(repeatedBy:)``), HTTP/2 by its HEADERS block (``HTTP2Connection``
/// holds one for its streams; what it keeps goes on to the loop's ``RepeatedHeaderBlocks``,
/// where repeats are looked up). Either way the entry kept is what its event loop's
/// ``RepeatedRequests`` keeps too.
///
/// A class: the exchange updates it while the answer it gives may end a response, whose end the
/// connection's state hears of (a struct would be accessed twice at once).
final class RepeatCache<Key> {
    /// What answering a repeat needs.
    struct Entry {
        let key: Key
        let request: StubRequest
        let method: String
        let match: StubRegistry.RepeatableMatch
    }

    /// The request kept, if any.
    private(set) var entry: Entry?
    private var backoff = RepeatBackoff()

    init() {}

    /// The entry was answered again.
    func repeated() {
        backoff.repeated()
    }

    /// Forgets the entry unrepeated (another request came, or the stubs changed since).
    func forget() {
        guard entry != nil else { return }
        entry = nil
        backoff.missed()
    }

    /// Whether to keep the request about to be decided (see ``RepeatBackoff``).
    func keepsNext() -> Bool {
        backoff.keepsNext()
    }

    /// Keeps `entry` in place of the one before.
    func keep(_ entry: Entry) {
        self.entry = entry
    }
}

extension RepeatCache where Key: RepeatKey {
    /// The entry `key` repeats. Any other request forgets the entry: the client did not repeat it.
    func entry(repeatedBy key: Key) -> Entry? {
        guard let entry else { return nil }
        if key.repeats(entry.key) { return entry }
        forget()
        return nil
    }
}

extension HTTPRequestHead: RepeatKey {
    /// Same method, target, version and header lines in the same order.
    func repeats(_ kept: HTTPRequestHead) -> Bool {
        guard method == kept.method, uri == kept.uri, version == kept.version, headers.count == kept.headers.count else { return false }
        return zip(headers, kept.headers).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }
}
