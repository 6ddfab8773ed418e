/// How a stub answers a request that says `Expect: 100-continue`, which asks the server whether
/// to send its body before sending it. Without a setting the server says `100 Continue` and
/// reads the body, as web servers do; these settings are the answers clients get wrong.
///
/// The stub that decides is the one the request's head matches (its body not read yet), so a
/// stub whose matcher reads the body does not take part.
///
/// ```swift
/// .status(413).expectContinue(.refuse)   // the final answer at once, the body never read
/// .data(ok).expectContinue(.ignore)      // no 100: the client sends its body after its own wait
/// ```
public enum ExpectContinue: String, Sendable, CaseIterable {
    /// The stub's answer goes out at once, without a `100 Continue` and without reading the
    /// body; the connection closes after it (HTTP/2: the stream is reset if the client sends its
    /// body all the same).
    case refuse
    /// No `100 Continue`: the server waits for the body, which a client sends once it gives up
    /// waiting for the `100` (curl after a second).
    case ignore
}

extension StubResponse {
    /// The same response answering `Expect: 100-continue` as `policy` says, instead of with
    /// `100 Continue`.
    public func expectContinue(_ policy: ExpectContinue) -> StubResponse {
        var copy = self
        copy.expectContinuePolicy = policy
        return copy
    }
}
