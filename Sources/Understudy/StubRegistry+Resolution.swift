/// What the registry decides for a request, and the touches it adds to a stub's response on the
/// way out: the global delay and the scenario step.
extension StubRegistry {
    /// What to do with a request: the prepared response of the stub that answers it, an error
    /// answer when the stub could not render, or the near misses when none matched.
    package enum Resolution: Sendable {
        /// The stub's response, ready to deliver.
        case response(PreparedResponse)
        /// The stub failed (unreadable file, throwing closure, failed upstream): answer with
        /// this 500/502 response, whose body is `message`.
        case failed(PreparedResponse, message: String)
        /// No stub matched.
        case unmatched([NearMiss])
    }

    /// What ``resolveImmediately(_:)`` could settle without suspending.
    package enum ImmediateResolution: Sendable {
        /// Settled: no closure, upstream or codec was involved.
        case resolved(Resolution)
        /// A stub matched (its use counted) but its answer needs ``render(_:for:context:)``.
        case pending(Match)
    }
}

extension StubRegistry.Resolution {
    /// The resolution with `delay` added before a stub's response (the registry's global delay).
    func delaying(_ delay: Duration) -> Self {
        guard case .response(let prepared) = self else { return self }
        return .response(prepared.delayed(by: delay))
    }

    /// The resolution with the scenario step its stub's use made, for the journal.
    func stepping(_ step: ScenarioStep?) -> Self {
        guard let step else { return self }
        switch self {
        case .response(var prepared):
            prepared.scenarioStep = step
            return .response(prepared)
        case .failed(var prepared, let message):
            prepared.scenarioStep = step
            return .failed(prepared, message: message)
        case .unmatched:
            return self
        }
    }
}

extension PreparedResponse {
    /// The response with `delay` added before it (the registry's global delay).
    func delayed(by delay: Duration) -> Self {
        guard delay > .zero else { return self }
        var delayed = self
        delayed.delay += delay
        return delayed
    }
}
