import UnderstudyImages
import UnderstudySupport

extension StubRegistry {
    /// The gate named `name`, which holds the bodies of responses paused at it (see
    /// ``StubResponse/paused(afterBytes:gate:)`` and `pause:` in stub files). A gate is made
    /// closed the first time it is named, by a test or by a body reaching it, and lives as
    /// long as the registry.
    ///
    /// ```swift
    /// let gate = stubs.gate("first-scan")
    /// try await gate.reached(count: 1)
    /// gate.release()
    /// ```
    public func gate(_ name: String) -> Gate {
        gateTable.withLock { gates in
            if let gate = gates[name] { return gate }
            let gate = Gate(name: name)
            gates[name] = gate
            return gate
        }
    }

    /// Every gate named so far, by name.
    public var gates: [Gate] {
        gateTable.withLock { $0.values.sorted { $0.name < $1.name } }
    }
}
