/// The measurements of one case, in nanoseconds per operation.
struct Samples {
    private(set) var values: [Double] = []

    mutating func append(_ value: Double) { values.append(value) }

    var count: Int { values.count }
    var median: Double { quantile(0.5) }
    var lowerQuartile: Double { quantile(0.25) }
    var upperQuartile: Double { quantile(0.75) }

    /// Linear interpolation between the closest ranks.
    func quantile(_ q: Double) -> Double {
        precondition(!values.isEmpty, "no samples")
        let sorted = values.sorted()
        let position = q * Double(sorted.count - 1)
        let lower = Int(position.rounded(.down))
        let upper = min(lower + 1, sorted.count - 1)
        let fraction = position - Double(lower)
        return sorted[lower] + (sorted[upper] - sorted[lower]) * fraction
    }
}
