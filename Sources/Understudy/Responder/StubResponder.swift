import Foundation

/// The one place a request is answered, for every transport: it matches the request against
/// the registry, renders the stub's response (or the unmatched answer, or a forward upstream),
/// and records how the transport's delivery ended in the journal.
///
/// Transports only carry out its decisions: the URL protocol on its client, the server on a
/// socket. Small and `Sendable`, like Hummingbird's `HTTPResponder`, so each connection or
/// task holds a copy.
///
/// ```swift
/// let responder = StubResponder(registry: stubs, transport: .server, upstream: client)
/// let id = responder.open(request, httpVersion: .http1_1)
/// let answer = await responder.answer(request)
/// // ... deliver answer.response by its delivery plan ...
/// responder.close(id, request: request, startTime: start, answer: answer, report: report)
/// ```
package struct StubResponder: Sendable {
    /// What becomes of a request no stub matches.
    package enum Unmatched: Sendable, Equatable {
        /// 404 with the near-miss report.
        case notFound
        /// Fetched from `URL` (scheme, host and port from it; `nil`: the request's own URL).
        case forward(URL?)
    }

    /// A decision that needs a task: a closure, an image codec or an upstream.
    package struct Pending: Sendable {
        fileprivate let match: StubRegistry.Match?
        fileprivate let request: StubRequest
    }

    /// What ``decide(_:keepingRepeat:repeatable:)`` settled without suspending.
    package enum Decision: Sendable {
        /// The answer, ready to deliver.
        case answer(StubAnswer)
        /// The answer needs ``answer(_:)-(Pending)`` on a task.
        case pending(Pending)
    }

    /// The fields, behind one reference: each connection, task and delivery holds a copy, and
    /// as seven stored fields each copy retained and released them all.
    private final class Storage: Sendable {
        let registry: StubRegistry
        let transport: Interaction.Transport
        let unmatched: Unmatched
        let observer: (@Sendable (Interaction) -> Void)?
        let unmatchedNote: (@Sendable (StubRequest) -> String?)?
        let network: NetworkSetting?
        let context: RenderContext

        init(
            registry: StubRegistry, transport: Interaction.Transport, unmatched: Unmatched, observer: (@Sendable (Interaction) -> Void)?,
            unmatchedNote: (@Sendable (StubRequest) -> String?)?, network: NetworkSetting?, context: RenderContext
        ) {
            self.registry = registry
            self.transport = transport
            self.unmatched = unmatched
            self.observer = observer
            self.unmatchedNote = unmatchedNote
            self.network = network
            self.context = context
        }
    }

    private let storage: Storage

    /// The stubs and journal.
    package var registry: StubRegistry { storage.registry }
    /// The transport journal entries are recorded under.
    package var transport: Interaction.Transport { storage.transport }
    /// What becomes of unmatched requests.
    package var unmatched: Unmatched { storage.unmatched }
    /// Told of each interaction once it is recorded complete (the request log).
    package var observer: (@Sendable (Interaction) -> Void)? { storage.observer }
    /// A last line for the 404 text of an unmatched request, or `nil` for none (the server
    /// points browsers at its dashboard; the in-process transport has none).
    package var unmatchedNote: (@Sendable (StubRequest) -> String?)? { storage.unmatchedNote }
    /// The network answers are delivered on when their stub names none; `nil` for full speed.
    package var network: NetworkSetting? { storage.network }
    private var context: RenderContext { storage.context }

    /// - Parameters:
    ///   - registry: the stubs and journal.
    ///   - transport: the transport entries are recorded under.
    ///   - upstream: fetches `.forward` responses and forwarded unmatched requests.
    ///   - unmatched: what becomes of unmatched requests.
    ///   - observer: told of each interaction when it is complete.
    ///   - unmatchedNote: a last line for an unmatched request's 404 text, or `nil` for none.
    ///   - network: the network answers are delivered on when their stub names none.
    package init(
        registry: StubRegistry, transport: Interaction.Transport, upstream: (any UpstreamFetcher)?,
        unmatched: Unmatched = .notFound, observer: (@Sendable (Interaction) -> Void)? = nil,
        unmatchedNote: (@Sendable (StubRequest) -> String?)? = nil, network: NetworkSetting? = nil
    ) {
        storage = Storage(
            registry: registry, transport: transport, unmatched: unmatched, observer: observer, unmatchedNote: unmatchedNote,
            network: network, context: RenderContext(upstream: upstream, transcoder: registry.transcoder)
        )
    }

    // MARK: - Deciding

    /// Matches `request` and renders a canned answer on the spot, so a transport can answer it
    /// without a hop to a task; closures, images and forwards come back `.pending`.
    /// - Parameters:
    ///   - keepingRepeat: whether to say how an identical next request may be answered.
    ///   - repeatable: set, when `keepingRepeat`, if an identical next request may be answered
    ///     with ``answerAgain(_:for:fileCheck:)``.
    ///   - fileCheck: a server loop's turn, whose requests share one look at changed files.
    package func decide(
        _ request: StubRequest, keepingRepeat: Bool = true, repeatable: inout StubRegistry.RepeatableMatch?, fileCheck: FileCheckTurn? = nil
    ) -> Decision {
        switch registry.resolveImmediately(request, keepingRepeat: keepingRepeat, repeatable: &repeatable, fileCheck: fileCheck) {
        case .resolved(.unmatched) where unmatched != .notFound:
            return .pending(Pending(match: nil, request: request))
        case .resolved(let resolution):
            return .answer(answer(for: resolution, request: request))
        case .pending(let match):
            return .pending(Pending(match: match, request: request))
        }
    }

    /// Finishes a decision that needed a task.
    package func answer(_ pending: Pending) async -> StubAnswer {
        guard let match = pending.match else {
            return await forward(pending.request)
        }
        return answer(for: await registry.render(match, for: pending.request, context: context), request: pending.request)
    }

    /// Decides and, if need be, renders: what the in-process transport does with each request.
    package func answer(_ request: StubRequest) async -> StubAnswer {
        var repeatable: StubRegistry.RepeatableMatch?
        switch decide(request, repeatable: &repeatable) {
        case .answer(let answer): return answer
        case .pending(let pending): return await answer(pending)
        }
    }

    /// Answers a request identical to the one `repeatable` came from with the same stub;
    /// `nil` when the stubs changed since and it must be decided in full.
    package func answerAgain(
        _ repeatable: StubRegistry.RepeatableMatch, for request: StubRequest, fileCheck: FileCheckTurn? = nil
    ) -> StubAnswer? {
        switch registry.resolveAgain(repeatable, for: request, fileCheck: fileCheck) {
        case nil:
            return nil
        case .response(let selected):
            // Its 304, 206 or 416 selected already.
            return onNetwork(StubAnswer(response: selected, kind: .stub))
        case let resolution?:
            return answer(for: resolution, request: request)
        }
    }

    private func answer(for resolution: StubRegistry.Resolution, request: StubRequest) -> StubAnswer {
        var answer: StubAnswer
        switch resolution {
        case .response(let prepared):
            // 304, 206 and 416 are decided here, once, for every transport (a repeat's by the
            // registry, which keeps what it selected).
            answer = StubAnswer(response: ConditionalRequest.answer(request, with: prepared), kind: .stub)
        case .failed(let prepared, let message):
            answer = StubAnswer(response: prepared, kind: .failed(message))
        case .unmatched(let nearMisses):
            answer = .unmatched(request, nearMisses: nearMisses, note: unmatchedNote?(request))
        }
        return onNetwork(answer)
    }

    /// `answer` with what its stub left to chance drawn, delivered on the transport's network
    /// when one is set and its stub named none.
    private func onNetwork(_ answer: StubAnswer) -> StubAnswer {
        var answer = answer
        if answer.response.chances != nil { answer.response = registry.drawn(answer.response) }
        guard let profile = network?.current else { return answer }
        answer.response = answer.response.delivered(on: profile)
        return answer
    }

    /// An unmatched request fetched upstream, as a `.forward` stub would.
    private func forward(_ request: StubRequest) async -> StubAnswer {
        let nearMisses = registry.nearMisses(for: request)
        guard case .forward(let base) = unmatched else { return .unmatched(request, nearMisses: nearMisses, note: unmatchedNote?(request)) }
        do {
            let prepared = try await StubResponse.forward(to: base).render(for: request, stubName: nil, context: context)
            return onNetwork(StubAnswer(response: prepared, kind: .forwarded(nearMisses, failure: nil)))
        } catch {
            let message = "\(error)"
            return onNetwork(StubAnswer(response: .text(status: (error as? RenderError)?.status ?? 502, message + "\n"), kind: .forwarded(nearMisses, failure: message)))
        }
    }

    // MARK: - Journaling

    /// Records a `CONNECT` spliced to its real host, once the tunnel has closed.
    /// - Parameters:
    ///   - request: the `CONNECT` (its URL names the host and port).
    ///   - startTime: when it arrived.
    ///   - bytesFromClient: bytes carried from the client to the host.
    ///   - bytesToClient: bytes carried back.
    package func recordTunnel(_ request: StubRequest, startTime: Date, bytesFromClient: Int, bytesToClient: Int) {
        let result = InteractionResult(
            stubName: nil, status: 200, bodyBytesSent: bytesToClient,
            outcome: .tunnelled(bytesFromClient: bytesFromClient, bytesToClient: bytesToClient)
        )
        let id = registry.journal.record(request, transport: transport, startTime: startTime, result: result)
        if let observer, let entry = registry.journal.interaction(id: id) { observer(entry) }
    }

    /// Records a request's arrival, for answers that take time: it is in the journal (in
    /// flight) while it waits. Returns the entry's id, for ``close(_:request:startTime:answer:report:)``.
    package func open(
        _ request: StubRequest, redirectedFrom: Int? = nil, httpVersion: Interaction.HTTPVersion, connection: ConnectionFacts? = nil
    ) -> Int {
        registry.journal.open(request, transport: transport, redirectedFrom: redirectedFrom, httpVersion: httpVersion, connection: connection)
    }

    /// Records how `answer`'s delivery ended: completes entry `id`, or with `id` `nil` records
    /// the whole exchange at once (one trip through the journal for an instant answer).
    /// - Returns: the entry's id.
    @discardableResult
    package func close(_ id: Int?, request: StubRequest, startTime: Date, answer: StubAnswer, report: DeliveryReport) -> Int {
        let journal = registry.journal
        let result = answer.result(report)
        let recorded: Int
        if let id {
            journal.complete(id, with: result, body: answer.sentBody(report))
            recorded = id
        } else {
            recorded = journal.record(request, transport: transport, startTime: startTime, result: result, body: answer.sentBody(report))
        }
        if let observer, let entry = journal.interaction(id: recorded) {
            observer(entry)
        }
        return recorded
    }
}
