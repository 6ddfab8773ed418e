import Foundation
import UnderstudyImages
import UnderstudySupport

/// The stubs a test or server answers with, and the journal of what was asked.
///
/// Safe to use from many threads and tasks at once. Precedence: the highest `priority` wins
/// (default 0); among equals, the stub added last wins, as in OHHTTPStubs. A stub added with a
/// name already in use replaces the old one. A WireMock mapping is known by its `id` instead:
/// one with the id of another replaces it, and one whose name is taken is kept beside the
/// other under that name with ` #2` (or the next free number) added, since WireMock's names are
/// labels and two mappings of one name both answer.
///
/// ```swift
/// let stubs = StubRegistry()
/// stubs.stub(.host("img.example.com") && .pathExtension("png"), response: .file(catPNG))
/// stubs.stub(.path("/gone.png"), response: .status(404))
/// let session = URLSession(configuration: .stubbed(by: stubs))
/// ```
public final class StubRegistry: Sendable {
    /// Every interaction, matched or not.
    public let journal: Journal
    /// Transcodes the image bodies of this registry's stubs (and caches the results).
    public let transcoder: ImageTranscoder

    struct State: Sendable {
        var entries: [String: StubEntry] = [:] {
            didSet { version &+= 1 }
        }
        /// Moves on whenever a stub is added or removed (see ``RepeatableMatch``).
        var version: UInt64 = 0
        var nextSequence = 0
        var index: StubIndex?
        /// Directories and files loaded from, for ``reset()``.
        var sources: [StubSource] = []
        /// Bad certificates on purpose, per host (StubRegistry+TLS.swift).
        var tlsRules: [TLSRule] = []
        /// Each scenario's state, once it left ``Scenario/startedState`` (StubRegistry+Scenarios.swift).
        var scenarioStates: [String: String] = [:]
        /// Added before every answer (``StubRegistry/globalDelay``); read with the match, under
        /// the same lock, so that it costs a request no lock of its own.
        var globalDelay: Duration = .zero
        /// What a server does to connections before their first request (ConnectionFault.swift).
        var connectionFault: ConnectionFault?
        /// Requests so far for each URL a stateful hazard answered (StubRegistry+Hazards.swift).
        var hazardRequests: [String: Int] = [:]

        /// The stub that answers `request` now, if any; nothing counted.
        mutating func entry(answering request: StubRequest) -> StubEntry? {
            if index == nil {
                index = StubIndex(entries: entries.values)
            }
            let scenarioStates = self.scenarioStates
            return index!.first(for: request, where: { entry in
                !entry.isExhausted && entry.passesPrefilter(request) && entry.scenarioAllows(scenarioStates)
                    && entry.matcher.matches(request)
            })
        }
    }

    let state = LockedState(State())
    /// The gates paused bodies wait at, by name (see ``gate(_:)``).
    let gateTable = LockedState<[String: Gate]>([:])

    /// The seed of the generator that draws what stubs leave to chance and their random delays.
    public let seed: UInt64
    /// That generator, shared by every request in the order they are answered.
    let draws: LockedState<SplitMix64>

    /// Creates an empty registry.
    /// - Parameters:
    ///   - journalLimit: the most journal entries kept (oldest dropped and counted); `nil` keeps all.
    ///   - journalByteLimit: about the most memory the journal's entries may hold, in bytes
    ///     (oldest dropped and counted, see ``Journal/byteLimit``); `nil` for no such bound.
    ///   - transcoder: transcodes image bodies; `ImageTranscoder.shared` (64 MiB cache) by default.
    ///   - seed: seeds the draws of `chance:` and of random delays, so that the same requests in
    ///     the same order draw the same; `nil` for a seed of its own (read it from ``seed``).
    public init(journalLimit: Int? = nil, journalByteLimit: Int? = nil, transcoder: ImageTranscoder = .shared, seed: UInt64? = nil) {
        journal = Journal(limit: journalLimit, byteLimit: journalByteLimit)
        self.transcoder = transcoder
        let seed = seed ?? UInt64.random(in: .min ... .max)
        self.seed = seed
        draws = LockedState(SplitMix64(seed: seed))
    }


    // MARK: - Adding and removing

    /// Adds `stub`; a stub with the same name is replaced (a WireMock mapping: the one with
    /// the same id, see ``StubRegistry``).
    public func add(_ stub: Stub) {
        state.withLock { state in state.insert([stub]) }
    }

    /// Adds several stubs in order (the last added wins among equal priorities).
    public func add(_ stubs: [Stub]) {
        stubs.forEach(add)
    }

    /// Answers requests matching `matcher` with `response`.
    /// - Parameters:
    ///   - matcher: the requests to answer.
    ///   - name: the stub's name; by default where it was registered (`File.swift:12`).
    ///   - priority: higher wins (default 0).
    ///   - times: stop matching after this many uses; `nil` for no limit.
    ///   - response: the answer.
    ///   - fileID: where the stub is registered, for its default name; leave the default.
    ///   - line: the line it is registered on, for its default name; leave the default.
    /// - Returns: the stub's name.
    @discardableResult
    public func stub(
        _ matcher: RequestMatcher, named name: String? = nil, priority: Int = 0, times: Int? = nil,
        response: StubResponse, fileID: String = #fileID, line: Int = #line
    ) -> String {
        register(matcher, name, priority, times, .response(response), fileID, line)
    }

    /// Answers requests matching `matcher` with `responses` in order; the last one repeats.
    @discardableResult
    public func stub(
        _ matcher: RequestMatcher, named name: String? = nil, priority: Int = 0, times: Int? = nil,
        responses: [StubResponse], fileID: String = #fileID, line: Int = #line
    ) -> String {
        precondition(!responses.isEmpty, "a sequence stub needs at least one response")
        return register(matcher, name, priority, times, .sequence(responses), fileID, line)
    }

    /// Answers requests matching `matcher` with what `handler` returns for each.
    ///
    /// A handler that throws answers 500 with the error's description as the body.
    @discardableResult
    public func stub(
        _ matcher: RequestMatcher, named name: String? = nil, priority: Int = 0, times: Int? = nil,
        fileID: String = #fileID, line: Int = #line,
        _ handler: @escaping @Sendable (StubRequest) async throws -> StubResponse
    ) -> String {
        register(matcher, name, priority, times, .handler(handler), fileID, line)
    }

    private func register(
        _ matcher: RequestMatcher, _ name: String?, _ priority: Int, _ times: Int?, _ answer: Stub.Answer,
        _ fileID: String, _ line: Int
    ) -> String {
        state.withLock { state in
            let chosen = name ?? Self.uniqueName("\(fileID):\(line)", in: state.entries)
            state.entries[chosen] = StubEntry(
                stub: Stub(named: chosen, matching: matcher, priority: priority, times: times, answer: answer),
                sequence: state.nextSequence
            )
            state.nextSequence += 1
            state.index = nil
            return chosen
        }
    }

    static func uniqueName(_ base: String, in entries: [String: StubEntry]) -> String {
        guard entries[base] != nil else { return base }
        var n = 2
        while entries["\(base) #\(n)"] != nil { n += 1 }
        return "\(base) #\(n)"
    }

    /// Removes the stub named `name`; returns whether there was one.
    @discardableResult
    public func removeStub(named name: String) -> Bool {
        state.withLock { state in
            guard state.entries.removeValue(forKey: name) != nil else { return false }
            state.index = nil
            return true
        }
    }

    /// Removes every stub (the journal is kept).
    public func removeAllStubs() {
        state.withLock { state in
            state.entries.removeAll()
            state.index = nil
        }
    }

    /// The registered stubs in precedence order (the one that would win first).
    public var stubs: [Stub] {
        state.withLock { $0.entries.values.sorted { $0.precedes($1) }.map(\.stub) }
    }

    /// Uses of each stub so far, by name.
    public var useCounts: [String: Int] {
        state.withLock { $0.entries.mapValues(\.uses) }
    }

    // MARK: - Matching

    /// The stub that answers a request, with the response it gives this time.
    package struct Match: Sendable {
        /// The stub's name.
        package let stubName: String
        /// The answer for this use (a sequence's step already chosen).
        package let answer: Stub.Answer
        /// Where a fixed answer's rendering is kept between uses.
        let renderCache: RenderCache?
        /// Where this use left the stub's scenario, if it has one.
        var scenarioStep: ScenarioStep? = nil
        /// The registry's ``StubRegistry/globalDelay`` when it matched.
        var globalDelay: Duration = .zero
    }

    /// The name of the stub that answers `request`, counting the use: what the matching
    /// benchmark (a package of its own, which cannot see `package` declarations) measures.
    @_spi(Benchmarks) public func matchedStubName(for request: StubRequest) -> String? {
        match(request)?.stubName
    }

    /// Finds the stub that answers `request` and counts the use (for `times` and sequences).
    /// - Returns: the match, or `nil` when no stub matches.
    package func match(_ request: StubRequest) -> Match? {
        matchEntry(request)?.match
    }

    /// The match, its entry, and the stubs' version when a repeat of `request` may reuse it
    /// (`nil` while some stub's matcher reads more than the request).
    private func matchEntry(_ request: StubRequest) -> (match: Match, entry: StubEntry, version: UInt64?)? {
        state.withLock { state in
            guard let entry = state.entry(answering: request) else { return nil }
            entry.uses += 1
            var step: ScenarioStep?
            if let scenario = entry.stub.scenario {
                if let newState = scenario.newState { state.scenarioStates[scenario.name] = newState }
                step = ScenarioStep(name: scenario.name, state: state.scenarioStates[scenario.name] ?? Scenario.startedState)
            }
            var answer: Stub.Answer
            if case .sequence(let responses) = entry.stub.answer {
                answer = .response(responses[min(entry.uses - 1, responses.count - 1)])
            } else {
                answer = entry.stub.answer
            }
            var version = state.index!.matchesByRequestAlone ? state.version : nil
            var renderCache = entry.renderCache
            if case .response(let response) = answer, let hazard = response.statefulHazard {
                // Chosen now, under the lock that counts the URL's requests; never reused.
                answer = .response(state.answer(hazard, for: request))
                version = nil
                renderCache = nil
            }
            let match = Match(
                stubName: entry.stub.name, answer: answer, renderCache: renderCache, scenarioStep: step, globalDelay: state.globalDelay
            )
            return (match, entry, version)
        }
    }

    /// What lets a transport answer a request identical to an earlier one without matching it
    /// again (``resolveAgain(_:for:)``): a keep-alive client asking for the same image over and
    /// over is what a stub server mostly sees.
    ///
    /// Only a stub with one fixed canned response and no `times` gives one, and only for a
    /// request without a body. While no stub is added or removed the same stub answers an
    /// identical request: whether a stub matches depends on the request alone, and uses can only
    /// exhaust other stubs with `times`, which then match nothing. A `.custom` matcher breaks the
    /// first point (its closure may read any state), so while any stub has one there are no
    /// repeatable matches: every request is matched anew.
    ///
    /// A class: the transports keep it with each request they may answer again, and copy it
    /// with each answer, and copying a struct of the stub's response retained and released
    /// each of its parts.
    package final class RepeatableMatch: @unchecked Sendable {  // the entry is only touched under the registry's lock
        fileprivate let version: UInt64
        fileprivate let entry: StubEntry
        fileprivate let response: StubResponse
        fileprivate let renderCache: RenderCache
        /// The global delay when it was made (changing it moves the version on).
        fileprivate let globalDelay: Duration
        /// What the request selected of the rendering, when it has a field that may make it
        /// conditional or ranged.
        let selection: ConditionalRequest.RememberedSelection?
        /// The response the request was last answered again with, and how long it lasts: while
        /// it does, an identical request is answered with it as it is, without looking at the
        /// rendering or the request's fields again. Only a whole rendering or a `304`: a range's
        /// bytes are kept by the rendering's variants, within their bounds. Touched under the
        /// registry's lock.
        fileprivate var answered: Answered?

        /// A response a repeat was answered with, and how long it lasts.
        fileprivate typealias Answered = (response: PreparedResponse, lasting: RenderCache.Lasting)

        fileprivate init(
            version: UInt64, entry: StubEntry, response: StubResponse, renderCache: RenderCache, globalDelay: Duration,
            request: StubRequest
        ) {
            self.version = version
            self.entry = entry
            self.response = response
            self.renderCache = renderCache
            self.globalDelay = globalDelay
            self.selection = ConditionalRequest.mayBeConditional(request) ? ConditionalRequest.RememberedSelection() : nil
        }
    }

    /// ``resolveImmediately(_:)``, also saying how an identical request may be answered again,
    /// when `keepingRepeat` asks (a ``RepeatableMatch`` holds three of the stub's objects, which
    /// a client that does not repeat itself would have retained and released for nothing).
    /// `fileCheck` shares one look at changed files among the requests of a server loop's turn.
    package func resolveImmediately(
        _ request: StubRequest, keepingRepeat: Bool = true, repeatable: inout RepeatableMatch?, fileCheck: FileCheckTurn? = nil
    ) -> ImmediateResolution {
        repeatable = nil
        guard let (match, entry, version) = matchEntry(request) else {
            return .resolved(.unmatched(nearMisses(for: request)))
        }
        guard case .response(let response) = match.answer, response.rendersImmediately else {
            return .pending(match)
        }
        if keepingRepeat, let version, let renderCache = match.renderCache, entry.stub.times == nil, request.body == nil, response.rendersTheSameEveryTime,
           case .response = entry.stub.answer {
            repeatable = RepeatableMatch(
                version: version, entry: entry, response: response, renderCache: renderCache, globalDelay: match.globalDelay,
                request: request
            )
        }
        return .resolved(
            render(response, for: request, stubName: match.stubName, cache: match.renderCache, fileCheck: fileCheck)
                .stepping(match.scenarioStep).delaying(match.globalDelay)
        )
    }

    /// Answers `request`, identical to the one `repeatable` came from, with the same stub, counting
    /// the use; `nil` when a stub was added or removed since, and the request must be resolved in full.
    /// A response comes with what the request selects of it already selected (a `304`, `206` or
    /// `416`, see ``ConditionalRequest``).
    package func resolveAgain(_ repeatable: RepeatableMatch, for request: StubRequest, fileCheck: FileCheckTurn? = nil) -> Resolution? {
        let current = state.withLock { state -> (isCurrent: Bool, answered: RepeatableMatch.Answered?) in
            guard state.version == repeatable.version else { return (false, nil) }
            repeatable.entry.uses += 1
            return (true, repeatable.answered)
        }
        guard current.isCurrent else { return nil }
        if let answered = current.answered, answered.lasting.stands(in: fileCheck) {
            return .response(answered.response)
        }
        let resolution = render(
            repeatable.response, for: request, stubName: repeatable.entry.stub.name, cache: repeatable.renderCache, fileCheck: fileCheck
        )
        guard case .response(let rendered) = resolution else { return resolution }
        let prepared = rendered.delayed(by: repeatable.globalDelay)
        let selected = ConditionalRequest.answer(request, with: prepared, remembered: repeatable.selection)
        if selected.renderID == prepared.renderID || selected.status == 304,
           let lasting = repeatable.renderCache.lasting(of: rendered, for: repeatable.response, fileCheck: fileCheck) {
            state.withLock { _ in repeatable.answered = (selected, lasting) }
        }
        return .response(selected)
    }

    private func render(
        _ response: StubResponse, for request: StubRequest, stubName: String, cache: RenderCache?, fileCheck: FileCheckTurn?
    ) -> Resolution {
        do {
            let render = { try response.renderImmediately(for: request, stubName: stubName)! }
            guard let cache else { return .response(try render()) }
            return .response(try cache.prepared(for: response, fileCheck: fileCheck, render: render))
        } catch {
            return failure(error, stubName: stubName)
        }
    }

    /// Matches `request` and renders canned answers on the spot, so a transport can answer them
    /// without a hop to another task; closures, forwards and images come back `.pending`.
    package func resolveImmediately(_ request: StubRequest) -> ImmediateResolution {
        var repeatable: RepeatableMatch?
        return resolveImmediately(request, repeatable: &repeatable)
    }

    /// Runs a matched stub's answer (its closure, if it has one) and renders it.
    package func render(_ match: Match, for request: StubRequest, context: RenderContext) async -> Resolution {
        var context = context
        if context.transcoder == nil { context.transcoder = transcoder }
        do {
            let response: StubResponse
            switch match.answer {
            case .response(let fixed):
                response = fixed
            case .sequence(let responses):
                // `match` already picked this use's step; kept for exhaustiveness.
                response = responses[responses.count - 1]
            case .handler(let handler):
                let returned = try await handler(request)
                response = returned.statefulHazard.map { hazard in state.withLock { $0.answer(hazard, for: request) } } ?? returned
            }
            return Resolution.response(try await response.render(for: request, stubName: match.stubName, context: context))
                .stepping(match.scenarioStep).delaying(match.globalDelay)
        } catch {
            return failure(error, stubName: match.stubName).stepping(match.scenarioStep)
        }
    }

    /// The 500 (or 502 upstream) a failed stub answers with, its body saying why.
    private func failure(_ error: any Error, stubName: String) -> Resolution {
        let status = (error as? RenderError)?.status ?? 500
        let message = (error as? RenderError)?.message ?? "stub \"\(stubName)\" failed: \(error)"
        return .failed(.text(status: status, message, stubName: stubName), message: message)
    }
}
