internal import NIOCore
internal import NIOHTTP1

/// The state of an HTTP/1.1 connection between its requests, and the fast path it allows: a
/// read that is, byte for byte, the last request a fixed canned stub answered is answered again
/// without going through the request decoder and the handlers behind it.
///
/// A keep-alive client that asks for the same image over and over (a benchmark, a polling
/// client, a page reloaded) sends the same bytes each time. Parsing them anew, building the
/// head's strings and passing the parts along is a large part of the work of a small answer
/// such as a `304`.
///
/// A state machine, kept apart from the handlers as NIOHTTP2 keeps its own: the handlers tell
/// it what happened (``read(_:)``, ``passedOn(queueEmpty:)``, ``decided(kept:)``,
/// ``responseEnded()``) and act on what it returns. It holds:
/// - whether a response is going (``isAnswering``): the connection's next request waits for it;
/// - the connection's ``RepeatCache``, keyed by request head;
/// - the bytes of the kept request, once armed.
///
/// It is armed only after a read that held exactly one whole request and nothing else: one
/// request passed on with nothing queued behind it, no body, decided at once and kept, the read
/// starting with its request line and ending with the blank line, with one line per header
/// field in between (so nothing of it was left from an earlier read, and nothing of a next
/// request is waiting in the decoder). Any other read disarms it and goes the usual way, as
/// does a repeat that comes while a response is going (pipelined) or after the stubs changed.
///
/// Arming costs a look at every byte of the read and a copy of it, which a client that never
/// repeats (a feed of different URLs, a header that changes every time) pays on every request
/// for nothing: it backs off as ``RepeatBackoff`` says.
struct HTTP1FastPath {
    /// Whether a request was passed on (or answered from the armed bytes) and its response has
    /// not ended.
    private(set) var isAnswering = false
    /// The last request a fixed canned stub answered, by its head.
    let repeats = RepeatCache<HTTPRequestHead>()
    /// The bytes of the kept request, when a read of the same bytes may be answered at once.
    private var armed: ByteBuffer?
    private var backoff = RepeatBackoff()
    /// What the read under way led to, to tell whether it may arm.
    private var thisRead = ReadOutcome()

    private struct ReadOutcome {
        var passedOn = 0
        var queueEmpty = true
        var kept = false
    }

    // MARK: - Events

    /// A read from the socket. Returns the kept request when the read repeats its bytes and may
    /// be answered now; the caller then answers it (``repeatAnswered()``) or finds it stale
    /// (``repeatFailed()``). `nil`: the read goes to the decoder.
    mutating func read(_ bytes: ByteBuffer) -> RepeatCache<HTTPRequestHead>.Entry? {
        thisRead = ReadOutcome()
        if let armed, !isAnswering, armed == bytes, let entry = repeats.entry {
            isAnswering = true
            return entry
        }
        disarm()
        return nil
    }

    /// The kept request was answered again from the read returned by ``read(_:)``.
    mutating func repeatAnswered() {
        backoff.repeated()
    }

    /// The kept request could not be answered again (the stubs changed): the read goes to the
    /// decoder after all.
    mutating func repeatFailed() {
        isAnswering = false
        disarm()
    }

    /// The decoder and the handlers behind it are through with `bytes`, a read: armed when it
    /// was exactly the one request just kept.
    mutating func decoded(_ bytes: ByteBuffer) {
        let outcome = thisRead
        thisRead = ReadOutcome()
        guard outcome.passedOn == 1, outcome.kept, outcome.queueEmpty, backoff.keepsNext(),
              let head = repeats.entry?.key, Self.isExactly(head, bytes)
        else { return }
        // A copy: holding the read's own buffer would keep NIO from reusing it for the next read.
        armed = ByteBuffer(bytes: bytes.readableBytesView)
    }

    /// The connection handler passed a request on (or a refusal): a response is going.
    /// `queueEmpty`: nothing of a next request waits behind it.
    mutating func passedOn(queueEmpty: Bool) {
        isAnswering = true
        thisRead.passedOn += 1
        thisRead.queueEmpty = thisRead.queueEmpty && queueEmpty
    }

    /// The request passed on was decided: `kept` when ``repeats`` now holds it.
    mutating func decided(kept: Bool) {
        thisRead.kept = kept
    }

    /// The response ended with the connection kept: the next request may go.
    mutating func responseEnded() {
        isAnswering = false
    }

    private mutating func disarm() {
        guard armed != nil else { return }
        armed = nil
        backoff.missed()
    }

    /// Whether `bytes` are `head` and nothing else: its request line first, then one line per
    /// header field and the blank line that ends a head without a body.
    static func isExactly(_ head: HTTPRequestHead, _ bytes: ByteBuffer) -> Bool {
        guard head.method != .CONNECT, !head.headers.contains(name: "upgrade") else { return false }
        let view = bytes.readableBytesView
        guard view.count >= 4, view.starts(with: head.method.rawValue.utf8),
              view.dropFirst(head.method.rawValue.utf8.count).starts(with: " \(head.uri) ".utf8),
              view.suffix(4).elementsEqual("\r\n\r\n".utf8)
        else { return false }
        var lineEnds = 0
        var previous: UInt8 = 0
        for byte in view {
            if previous == UInt8(ascii: "\r"), byte == UInt8(ascii: "\n") { lineEnds += 1 }
            previous = byte
        }
        // The request line, each field's line, and the blank line.
        return lineEnds == head.headers.count + 2
    }
}
