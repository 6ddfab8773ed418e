import Foundation
import Understudy

/// What the URL protocol does with a request no stub matches.
public enum UnmatchedPolicy: Sendable, Hashable {
    /// Fail the task with `URLError(.resourceUnavailable)` whose description names the nearest
    /// stubs and what differed. The default: nothing reaches the network by accident.
    case fail
    /// Answer 404 `text/plain` with the same near-miss report as the body (what the server does).
    case notFound
    /// Let the request through to the real network (journaled with transport `.proxy`).
    case passThrough
}

/// How a stubbed session behaves.
public struct StubbingOptions: Sendable, Hashable {
    /// What happens to unmatched requests.
    public var unmatched: UnmatchedPolicy
    /// The network every response is delivered on when its stub names none, with the same
    /// timing as the server's: latency before the response, the body paced at the rate.
    /// `nil` (the default) is full speed.
    public var network: NetworkProfile?
    /// The loading system the protocol works with: this platform's, unless a test picks the
    /// other to exercise its path.
    var loadingSystem: LoadingSystem = .current

    /// Creates options.
    /// - Parameters:
    ///   - unmatched: what happens to unmatched requests.
    ///   - network: the network responses are delivered on; `nil` for full speed.
    public init(unmatched: UnmatchedPolicy = .fail, network: NetworkProfile? = nil) {
        self.unmatched = unmatched
        self.network = network
    }
}
