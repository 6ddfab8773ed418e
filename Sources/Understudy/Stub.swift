/// A matcher and what to answer with, as the registry holds it.
///
/// ```swift
/// let stub = Stub(named: "cat", matching: .path("/cat.png"), response: .file(catURL))
/// stubs.add(stub)
/// ```
public struct Stub: Sendable {
    /// How a stub answers.
    public enum Answer: Sendable {
        /// The same response every time.
        case response(StubResponse)
        /// These responses in order; the last one repeats.
        case sequence([StubResponse])
        /// A closure of the request.
        case handler(@Sendable (StubRequest) async throws -> StubResponse)
    }

    /// The name that the journal, `X-Understudy-Stub` and the admin API use.
    public var name: String
    /// Which requests it answers.
    public var matcher: RequestMatcher
    /// Higher wins; among equals the stub added last wins.
    public var priority: Int
    /// Uses before it stops matching (HEAD and each step of a sequence count); `nil` for no limit.
    public var times: Int?
    /// The answer.
    public var answer: Answer
    /// The scenario it takes part in (see ``inScenario(_:when:then:)``), or `nil`.
    public var scenario: Scenario?
    /// The WireMock mapping it was read from, for the WireMock admin API; `nil` for other stubs.
    package var wireMock: WireMockMapping?

    /// Creates a stub.
    /// - Parameters:
    ///   - name: its name.
    ///   - matcher: the requests it answers.
    ///   - priority: higher wins (default 0).
    ///   - times: stop matching after this many uses (at least 1), or `nil`.
    ///   - answer: the answer.
    public init(named name: String, matching matcher: RequestMatcher, priority: Int = 0, times: Int? = nil, answer: Answer) {
        precondition(times.map { $0 >= 1 } ?? true, "times must be at least 1, not \(times!)")
        self.name = name
        self.matcher = matcher
        self.priority = priority
        self.times = times
        self.answer = answer
    }

    /// Creates a stub that always gives `response`.
    public init(named name: String, matching matcher: RequestMatcher, priority: Int = 0, times: Int? = nil, response: StubResponse) {
        self.init(named: name, matching: matcher, priority: priority, times: times, answer: .response(response))
    }
}
