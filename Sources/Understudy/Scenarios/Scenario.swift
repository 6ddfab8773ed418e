/// A stub's place in a scenario: a named state machine that stubs read and move on, as
/// WireMock's `scenarioName`, `requiredScenarioState` and `newScenarioState` do.
///
/// Every scenario starts in ``startedState``. A stub in a scenario matches only while the
/// scenario is in its ``requiredState`` (any state when `nil`); when it answers, the scenario
/// moves to its ``newState`` (stays when `nil`).
///
/// ```swift
/// stubs.add(Stub(named: "empty", matching: .path("/cart"), response: .json([]))
///     .inScenario("cart", when: Scenario.startedState, then: "filled"))
/// stubs.add(Stub(named: "full", matching: .path("/cart"), response: .json(["cat.png"]))
///     .inScenario("cart", when: "filled"))
/// ```
public struct Scenario: Sendable, Hashable {
    /// The state every scenario starts in, and goes back to on reset: `Started`.
    public static let startedState = "Started"

    /// The scenario's name, shared by the stubs that take part in it.
    public var name: String
    /// The state the scenario must be in for the stub to match; `nil` for any.
    public var requiredState: String?
    /// The state the scenario moves to when the stub answers; `nil` to stay.
    public var newState: String?

    /// Creates a stub's part in a scenario.
    /// - Parameters:
    ///   - name: the scenario's name.
    ///   - requiredState: the state it must be in for the stub to match; `nil` for any.
    ///   - newState: the state it moves to when the stub answers; `nil` to stay.
    public init(_ name: String, requiredState: String? = nil, newState: String? = nil) {
        self.name = name
        self.requiredState = requiredState
        self.newState = newState
    }
}

extension Stub {
    /// This stub taking part in scenario `name`: it matches only while the scenario is in state
    /// `requiredState` and moves it to `newState` when it answers.
    /// - Parameters:
    ///   - name: the scenario's name.
    ///   - requiredState: the state it must be in (``Scenario/startedState`` at first); `nil` for any.
    ///   - newState: the state to move to; `nil` to stay.
    /// - Returns: the stub with its scenario set.
    public func inScenario(_ name: String, when requiredState: String? = nil, then newState: String? = nil) -> Stub {
        var stub = self
        stub.scenario = Scenario(name, requiredState: requiredState, newState: newState)
        return stub
    }
}
