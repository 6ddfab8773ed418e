import UnderstudyImages
import UnderstudySupport

extension StubRegistry {
    /// Every scenario a registered stub takes part in, by name, with its state now
    /// (``Scenario/startedState`` until a stub moves it).
    public var scenarioStates: [String: String] {
        state.withLock { state in
            var states: [String: String] = [:]
            for entry in state.entries.values {
                guard let name = entry.stub.scenario?.name else { continue }
                states[name] = state.scenarioStates[name] ?? Scenario.startedState
            }
            return states
        }
    }

    /// The states the stubs of scenario `name` require or move to, sorted, ``Scenario/startedState`` first.
    public func possibleStates(ofScenario name: String) -> [String] {
        state.withLock { state in
            var states: Set<String> = [Scenario.startedState]
            for entry in state.entries.values {
                guard let scenario = entry.stub.scenario, scenario.name == name else { continue }
                if let required = scenario.requiredState { states.insert(required) }
                if let new = scenario.newState { states.insert(new) }
            }
            return [Scenario.startedState] + states.subtracting([Scenario.startedState]).sorted()
        }
    }

    /// Puts every scenario back in ``Scenario/startedState``.
    public func resetScenarios() {
        state.withLock { state in
            state.scenarioStates.removeAll()
            state.version &+= 1
        }
    }

    /// Moves scenario `name` to `newState`.
    /// - Returns: whether some registered stub takes part in a scenario of that name (nothing
    ///   changes when none does).
    @discardableResult
    public func setScenario(_ name: String, to newState: String) -> Bool {
        state.withLock { state in
            guard state.entries.values.contains(where: { $0.stub.scenario?.name == name }) else { return false }
            state.scenarioStates[name] = newState == Scenario.startedState ? nil : newState
            state.version &+= 1
            return true
        }
    }

    /// A delay added before every response's first byte, on top of the stub's own (WireMock's
    /// global `fixedDelay`, the admin API's `POST /__admin/settings`); zero for none.
    public var globalDelay: Duration {
        get { state.withLock { $0.globalDelay } }
        set {
            state.withLock { state in
                state.globalDelay = max(newValue, .zero)
                // Repeats of earlier requests must not answer with the delay they were made with.
                state.version &+= 1
            }
        }
    }
}
