import Foundation

extension StubRegistry {
    /// The stubs nearest to matching `request`, nearest first: ranked by distance as WireMock
    /// ranks them (``RequestMatcher/distance(to:)``: how close the URL, method and other parts
    /// are, not only how many matched), then by precedence. A stub whose scenario is in another
    /// state, or which is used up, is a near miss too.
    public func nearMisses(for request: StubRequest, limit: Int = 3) -> [NearMiss] {
        let (entries, scenarioStates) = state.withLock { (Array($0.entries.values), $0.scenarioStates) }
        let scored: [(entry: StubEntry, miss: NearMiss)] = entries.compactMap { entry in
            let parts = entry.stub.matcher.parts
            var mismatches = parts.compactMap { $0.mismatch(for: request) }
            var distance = entry.stub.matcher.distance(to: request)
            if !entry.scenarioAllows(scenarioStates), let scenario = entry.stub.scenario {
                mismatches.append(Mismatch(
                    expected: "scenario \(scenario.name) is in state \(scenario.requiredState ?? "")",
                    actual: scenarioStates[scenario.name] ?? Scenario.startedState
                ))
                // WireMock counts the scenario state as one more part of weight 1.
                distance = (distance * Double(max(parts.count, 1)) + 1) / Double(max(parts.count, 1) + 1)
            }
            if mismatches.isEmpty && !state.withLock({ _ in entry.isExhausted }) { return nil }
            let miss = NearMiss(
                stubName: entry.stub.name, matchedParts: parts.count - mismatches.count,
                totalParts: parts.count, mismatches: mismatches, distance: distance
            )
            return (entry, miss)
        }
        return scored.sorted { lhs, rhs in
            if lhs.miss.distance != rhs.miss.distance { return lhs.miss.distance < rhs.miss.distance }
            return lhs.entry.precedes(rhs.entry)
        }.prefix(limit).map(\.miss)
    }
}
