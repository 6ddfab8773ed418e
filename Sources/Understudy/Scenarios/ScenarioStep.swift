/// Where a request left a scenario: what the journal shows for each request a scenario's stub
/// answered.
public struct ScenarioStep: Sendable, Hashable, CustomStringConvertible {
    /// The scenario's name.
    public let name: String
    /// Its state once the stub answered (the state it was in when the stub moved it nowhere).
    public let state: String

    /// Creates a step.
    public init(name: String, state: String) {
        self.name = name
        self.state = state
    }

    /// `cart: filled`.
    public var description: String { "\(name): \(state)" }
}
