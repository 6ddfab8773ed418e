/// A stub as the registry holds it: the stub plus its bookkeeping. ``uses`` is read and
/// changed only under the registry's lock, so an entry may go between threads.
final class StubEntry: @unchecked Sendable {
    let stub: Stub
    /// Copied out of `stub` so the hot path reads them without touching the struct.
    let matcher: RequestMatcher
    let priority: Int
    /// Order of addition; among equal priorities the higher wins.
    let sequence: Int
    let pinned: PinnedValues
    /// Whether the matcher's verdict depends on the request alone (no `.custom` test in it).
    let matchesByRequestAlone: Bool
    var uses = 0
    /// Whether one of the stub's responses says how to take a request's body before it is read
    /// (``StubRegistry/BodyHandling``).
    let handlesBodyOnHead: Bool
    /// The rendering of a fixed `.response` answer, reused while valid; `nil` for sequences and closures.
    let renderCache: RenderCache?

    init(stub: Stub, sequence: Int) {
        self.stub = stub
        self.matcher = stub.matcher
        self.priority = stub.priority
        self.sequence = sequence
        self.pinned = stub.matcher.node.pinned
        // A scenario's state decides as much as the request does.
        self.matchesByRequestAlone = stub.matcher.node.readsOnlyTheRequest && stub.scenario == nil
        self.handlesBodyOnHead = stub.fixedResponses.contains { !StubRegistry.BodyHandling(of: $0).isDefault }
        if case .response(let response) = stub.answer {
            self.renderCache = RenderCache(for: response)
        } else {
            self.renderCache = nil
        }
    }

    /// Whether the stub's scenario, if it has one, is in the state the stub requires.
    @inline(__always)
    func scenarioAllows(_ states: [String: String]) -> Bool {
        guard let scenario = stub.scenario, let required = scenario.requiredState else { return true }
        return (states[scenario.name] ?? Scenario.startedState) == required
    }

    var isExhausted: Bool {
        stub.times.map { uses >= $0 } ?? false
    }

    /// Whether this entry takes precedence over `other`: higher priority, then added later.
    @inline(__always)
    func precedes(_ other: StubEntry) -> Bool {
        priority != other.priority ? priority > other.priority : sequence > other.sequence
    }

    /// The cheap pinned-value tests the index does not already guarantee.
    func passesPrefilter(_ request: StubRequest) -> Bool {
        if let methods = pinned.methods, !methods.contains(request.method) { return false }
        if let schemes = pinned.schemes, !schemes.contains(request.scheme) { return false }
        return true
    }
}
