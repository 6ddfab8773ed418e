/// A stub that almost matched a request: how much matched and what differed.
public struct NearMiss: Sendable, Hashable, CustomStringConvertible {
    /// The stub's name.
    public let stubName: String
    /// Matcher parts the request passed.
    public let matchedParts: Int
    /// Matcher parts in all.
    public let totalParts: Int
    /// The parts that failed, with what the request had.
    public let mismatches: [Mismatch]
    /// How far the request is from matching, 0 to 1, as WireMock ranks near misses (see
    /// ``RequestMatcher/distance(to:)``).
    public let distance: Double

    /// Creates a near miss.
    public init(stubName: String, matchedParts: Int, totalParts: Int, mismatches: [Mismatch], distance: Double = 0) {
        self.stubName = stubName
        self.matchedParts = matchedParts
        self.totalParts = totalParts
        self.mismatches = mismatches
        self.distance = distance
    }

    /// `"cat" (2 of 3 parts matched): path is /cat.png (got /dog.png)`.
    public var description: String {
        let differed = mismatches.isEmpty ? "used up (times)" : mismatches.map(\.description).joined(separator: "; ")
        return "\"\(stubName)\" (\(matchedParts) of \(totalParts) parts matched): \(differed)"
    }

    /// The report an unmatched request gets: the request, then up to three nearest stubs.
    package static func report(for request: StubRequest, nearMisses: [NearMiss]) -> String {
        var lines = ["No stub matched \(request)."]
        if nearMisses.isEmpty {
            lines.append("No stubs are registered.")
        } else {
            lines.append("Nearest stubs:")
            for (index, miss) in nearMisses.enumerated() {
                lines.append("  \(index + 1). \(miss)")
            }
        }
        return lines.joined(separator: "\n")
    }
}
