/// The failure messages of the Understudy checks, as functions that return the message or `nil`
/// when the check holds (the way swift-snapshot-testing's `verifySnapshot` does), so they can be
/// tested word for word.
///
/// One set serves both test libraries: `UnderstudyXCTest` reports them with `XCTFail`
/// (`XCTAssertRequested`, ...) and `UnderstudyTesting` records them as Swift Testing issues
/// (`expectRequested`, ...), so a check reads the same whichever library runs it.
package enum FailureMessages {
    /// For `XCTAssertRequested` and `expectRequested`: `times` exact, or at least once when `nil`.
    package static func requested(_ journal: Journal, _ matcher: RequestMatcher, times: Int?) -> String? {
        let count = journal.count(matching: matcher)
        if let times {
            guard count != times else { return nil }
            return "expected \(plural(times, "request")) matching \(matcher), got \(count)\n" + seen(journal)
        }
        guard count == 0 else { return nil }
        return "expected a request matching \(matcher), got none\n" + seen(journal)
    }

    /// For `XCTAssertNotRequested` and `expectNotRequested`.
    package static func notRequested(_ journal: Journal, _ matcher: RequestMatcher) -> String? {
        let matching = journal.interactions(matching: matcher)
        guard !matching.isEmpty else { return nil }
        return "expected no request matching \(matcher), got \(matching.count):\n"
            + matching.map { "  \($0)" }.joined(separator: "\n")
    }

    /// For `XCTAssertNoUnmatchedRequests` and `expectNoUnmatchedRequests`: each unmatched request
    /// with its nearest stubs and what differed.
    package static func noUnmatchedRequests(_ journal: Journal) -> String? {
        unmatched(journal.unmatched)
    }

    /// The near-miss text of ``noUnmatchedRequests(_:)`` for these interactions, or `nil` when
    /// there are none. The `.stubbed` trait records one issue per unmatched request with this
    /// text for that request alone.
    package static func unmatched(_ interactions: [Interaction]) -> String? {
        guard !interactions.isEmpty else { return nil }
        var lines = ["\(plural(interactions.count, "unmatched request")):"]
        for interaction in interactions {
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

    /// For `XCTAssertAllStubsUsed` and `expectAllStubsUsed`.
    package static func allStubsUsed(_ registry: StubRegistry) -> String? {
        let uses = registry.useCounts
        let unused = registry.stubs.map(\.name).filter { (uses[$0] ?? 0) == 0 }.sorted()
        guard !unused.isEmpty else { return nil }
        return "\(plural(unused.count, "stub")) never used: " + unused.map { "\"\($0)\"" }.joined(separator: ", ")
    }

    /// For `XCTAssertRequestOrder` and `expectRequestOrder`: requests matching each matcher were
    /// made in this order (other requests may come between them).
    package static func requestOrder(_ journal: Journal, _ matchers: [RequestMatcher]) -> String? {
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

    /// The report a failed test carries: its unmatched requests with their near misses (or a line
    /// saying there were none), then every request the journal saw.
    package static func nearMissReport(_ journal: Journal) -> String {
        (noUnmatchedRequests(journal) ?? "No unmatched requests.") + "\n" + seen(journal)
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
