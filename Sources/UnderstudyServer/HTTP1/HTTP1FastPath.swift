internal import NIOCore
internal import NIOHTTP1

/// The state of an HTTP/1.1 connection between its requests, and the fast path it allows: a
/// read that is, byte for byte, a request a fixed canned stub answered lately on this event loop
/// (``RepeatedReads``) is answered again without going through the request decoder and the
/// handlers behind it.
///
/// Keep-alive clients send the same bytes for the same image each time (a feed scrolled again,
/// a gallery reopened, a benchmark, a page reloaded). Parsing them anew, building the head's
/// strings, matching the request and passing the parts along is most of the work of a small
/// answer such as a `304` or a thumbnail.
///
/// A state machine, kept apart from the handlers as NIOHTTP2 keeps its own: the handlers tell
/// it what happened (``read(_:)``, ``passedOn(queueEmpty:)``, ``decided(kept:)``,
/// ``responseEnded()``) and act on what it returns. It holds:
/// - whether a response is going (``isAnswering``): the connection's next request waits for it;
/// - the connection's ``RepeatCache``, keyed by request head;
/// - whether the decoder holds nothing (``atBoundary``), so that a read may be a request by itself.
///
/// A read is looked up only at a boundary: before the connection's first read, after a read
/// that held exactly one whole request and nothing else (one request passed on with nothing
/// queued behind it, no body, decided at once and kept, the read starting with its request line
/// and ending with the blank line, with one line per header field in between), or after one
/// answered here. Then nothing of an earlier read is left in the decoder for this read to
/// finish. Any other read goes the usual way, as does a repeat that comes while a response is
/// going (pipelined) or after the stubs changed.
///
/// A read not answered here is offered to the loop's ``RepeatedReads``; when the loop saw the
/// same bytes before, its request is kept (``wantsKept``), and the loop keeps it by its bytes
/// if the read turns out to be exactly that request. A client that never repeats (a header
/// that changes every time) is kept only as often as its ``RepeatCache`` backs off to
/// (``RepeatBackoff``), and reaches a boundary, and pays for a lookup, only as often.
struct HTTP1FastPath {
    /// Whether a request was passed on (or answered from a kept read) and its response has
    /// not ended.
    private(set) var isAnswering = false
    /// The last request a fixed canned stub answered, by its head.
    let repeats = RepeatCache<HTTPRequestHead>()
    /// The requests the connection's event loop keeps by their reads' bytes.
    let reads: RepeatedReads
    /// Whether the decoder holds nothing of a request: nothing read yet, or the last read was
    /// exactly one request.
    private(set) var atBoundary = true
    /// What the read under way led to, to tell whether it ended at a boundary.
    private var thisRead = ReadOutcome()

    private struct ReadOutcome {
        var passedOn = 0
        var queueEmpty = true
        var kept = false
        /// Whether the loop saw the read's bytes before.
        var seenBefore = false
    }

    /// Whether the request of the read under way is to be kept for a repeat: the loop saw its
    /// bytes before.
    var wantsKept: Bool { thisRead.seenBefore }

    /// - Parameter reads: the loop's kept reads for the connection's scheme.
    init(reads: RepeatedReads = RepeatedReads()) {
        self.reads = reads
    }

    // MARK: - Events

    /// A read from the socket. Returns the kept request when the read repeats one and may be
    /// answered now; the caller then answers it, or finds it stale (``repeatFailed()``). `nil`:
    /// the read goes to the decoder.
    mutating func read(_ bytes: ByteBuffer) -> RepeatedRead? {
        thisRead = ReadOutcome()
        if atBoundary, !isAnswering, let entry = reads.entry(for: bytes) {
            isAnswering = true
            return entry
        }
        atBoundary = false
        thisRead.seenBefore = reads.offer(bytes)
        return nil
    }

    /// The kept request could not be answered again (the stubs changed, so every read the loop
    /// kept is stale): the read goes to the decoder after all.
    mutating func repeatFailed() {
        isAnswering = false
        atBoundary = false
        reads.removeAll()
    }

    /// The decoder and the handlers behind it are through with `bytes`, a read: at a boundary,
    /// and kept by the loop, when it was exactly the one request just kept.
    mutating func decoded(_ bytes: ByteBuffer) {
        let outcome = thisRead
        thisRead = ReadOutcome()
        guard outcome.passedOn == 1, outcome.kept, outcome.queueEmpty, let entry = repeats.entry, Self.isExactly(entry.key, bytes)
        else { return }
        atBoundary = true
        if outcome.seenBefore { reads.keep(entry, for: bytes) }
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
