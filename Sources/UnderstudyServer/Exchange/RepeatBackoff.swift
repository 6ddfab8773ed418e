/// When to keep what answering a repeat needs (a request's match, and over HTTP/1.1 its read's
/// bytes), for a client that may or may not repeat itself: always, until ``patience`` kept ones
/// in a row were not repeated; then only every ``retryInterval``-th time, until a repeat comes
/// again. A client that never repeats (a header that changes every time) then pays for keeping
/// and comparing one request in 32. Each ``RepeatCache`` has one; a request answered from its
/// event loop's ``RepeatedRequests`` counts as a repeat.
struct RepeatBackoff {
    static let patience = 4
    static let retryInterval = 32

    /// Kept ones in a row that the next request did not repeat.
    private var unrepeated = 0
    /// Requests since the last one kept while backing off.
    private var skipped = 0

    /// A kept request was not repeated by the next.
    mutating func missed() {
        unrepeated += 1
    }

    /// A kept request was repeated.
    mutating func repeated() {
        unrepeated = 0
    }

    /// Whether to keep this request for a repeat, asked of every request decided in full (before
    /// deciding it, so that one not kept costs nothing to keep).
    mutating func keepsNext() -> Bool {
        guard unrepeated >= Self.patience else { return true }
        skipped += 1
        guard skipped >= Self.retryInterval else { return false }
        skipped = 0
        return true
    }
}
