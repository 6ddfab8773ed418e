import Understudy

/// The failure messages of the Understudy assertions, as functions that return the message
/// or `nil` when the assertion holds (the way swift-snapshot-testing's `verifySnapshot` does),
/// so they can be tested word for word.
public enum FailureMessages {
    /// For ``XCTAssertRequested(_:_:times:file:line:)``: `times` exact, or at least once when `nil`.
    public static func requested(_ journal: Journal, _ matcher: RequestMatcher, times: Int?) -> String? {
        let count = journal.count(matching: matcher)
        if let times {
            guard count != times else { return nil }
            return "expected \(plural(times, "request")) matching \(matcher), got \(count)\n" + seen(journal)
        }
        guard count == 0 else { return nil }
        return "expected a request matching \(matcher), got none\n" + seen(journal)
    }

    /// For ``XCTAssertNotRequested(_:_:file:line:)``.
    public static func notRequested(_ journal: Journal, _ matcher: RequestMatcher) -> String? {
        let matching = journal.interactions(matching: matcher)
        guard !matching.isEmpty else { return nil }
        return "expected no request matching \(matcher), got \(matching.count):\n"
            + matching.map { "  \($0)" }.joined(separator: "\n")
    }

    /// For ``XCTAssertNoUnmatchedRequests(_:file:line:)``: each unmatched request with its
    /// nearest stubs and what differed.
    public static func noUnmatchedRequests(_ journal: Journal) -> String? {
        let unmatched = journal.unmatched
        guard !unmatched.isEmpty else { return nil }
        var lines = ["\(plural(unmatched.count, "unmatched request")):"]
        for interaction in unmatched {
            lines.append("  \(interaction.request)")
            if interaction.nearMisses.isEmpty {
                lines.append("    no stubs to compare with")
            }
            for (index, miss) in interaction.nearMisses.enumerated() {
                lines.append("    \(index + 1). \(miss)")
            }
        }
        return lines.joined(separator: "\n")
    }

    /// For ``XCTAssertAllStubsUsed(_:file:line:)``.
    public static func allStubsUsed(_ registry: StubRegistry) -> String? {
        let uses = registry.useCounts
        let unused = registry.stubs.map(\.name).filter { (uses[$0] ?? 0) == 0 }.sorted()
        guard !unused.isEmpty else { return nil }
        return "\(plural(unused.count, "stub")) never used: " + unused.map { "\"\($0)\"" }.joined(separator: ", ")
    }

    /// For ``XCTAssertRequestOrder(_:_:file:line:)``: requests matching each matcher were made
    /// in this order (other requests may come between them).
    public static func requestOrder(_ journal: Journal, _ matchers: [RequestMatcher]) -> String? {
        let interactions = journal.interactions
        var position = 0
        for (step, matcher) in matchers.enumerated() {
            guard let found = interactions[position...].firstIndex(where: { matcher.matches($0.request) }) else {
                let expected = matchers.enumerated().map { "  \($0.offset + 1). \($0.element)" }.joined(separator: "\n")
                let after = step == 0 ? "" : " after request #\(position)"
                return "expected requests in this order:\n\(expected)\nbut found no request matching \(matcher)\(after)\n"
                    + seen(journal)
            }
            position = found + 1
        }
        return nil
    }

    private static func seen(_ journal: Journal) -> String {
        let interactions = journal.interactions
        guard !interactions.isEmpty else { return "No requests were made." }
        return "Requests made:\n" + interactions.enumerated().map { "  \($0.offset + 1). \($0.element)" }.joined(separator: "\n")
    }

    private static func plural(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }
}
