/// Runs several cases in interleaved rounds, so that drift in the machine's speed (frequency
/// scaling, other load) touches every case alike and their ratios stay meaningful.
struct SideBySide {
    /// One thing to measure. `sample` runs it once (or a batch) and returns nanoseconds per
    /// operation.
    struct Case {
        let name: String
        let sample: () throws -> Double
    }

    let cases: [Case]

    /// - Parameters:
    ///   - rounds: Samples kept per case.
    ///   - warmup: Rounds run first and discarded (caches, page faults, lazy index builds).
    /// - Returns: Samples by case name.
    func run(rounds: Int, warmup: Int) throws -> [String: Samples] {
        var results: [String: Samples] = [:]
        for round in 0..<(warmup + rounds) {
            // Rotate the order each round so no case always runs first (or right after a
            // cache-thrashing neighbour).
            for offset in 0..<cases.count {
                let item = cases[(round + offset) % cases.count]
                let value = try item.sample()
                if round >= warmup { results[item.name, default: Samples()].append(value) }
            }
        }
        return results
    }
}
