import Foundation
@_spi(Benchmarks) import Understudy

/// Issue 2: the cost of `StubRegistry.match(_:)` with 100 and 10,000 stubs, against a full scan
/// of every stub's matcher in precedence order.
struct MatchingBenchmark {
    let rounds: Int

    func run(into report: inout Report) throws {
        let requestCount = 1024
        let small = MatchingWorkload(stubCount: 100, requestCount: requestCount)
        let large = MatchingWorkload(stubCount: 10_000, requestCount: requestCount)
        let smallRegistry = small.makeRegistry()
        let largeRegistry = large.makeRegistry()
        let smallOrdered = smallRegistry.stubs
        let largeOrdered = largeRegistry.stubs

        // The index must give the answer a full scan gives, or the comparison means nothing.
        for (workload, registry, ordered) in [(small, smallRegistry, smallOrdered), (large, largeRegistry, largeOrdered)] {
            for request in workload.requests {
                let indexed = registry.matchedStubName(for: request)
                let scanned = ordered.first { $0.matcher.matches(request) }?.name
                guard indexed == scanned else {
                    throw BenchmarkError("index and full scan disagree for \(request): \(indexed ?? "nil") vs \(scanned ?? "nil")")
                }
            }
        }
        let smallHits = small.requests.filter { smallRegistry.matchedStubName(for: $0) != nil }.count
        let largeHits = large.requests.filter { largeRegistry.matchedStubName(for: $0) != nil }.count

        func indexed(_ registry: StubRegistry, _ requests: [StubRequest]) -> () -> Double {
            {
                var found = 0
                let elapsed = Stopwatch.time {
                    for request in requests where registry.matchedStubName(for: request) != nil { found += 1 }
                }
                blackHole(found)
                return elapsed / Double(requests.count)
            }
        }
        // A full scan of 10,000 matchers costs far more per request; sample fewer requests
        // (every 16th of the same mix) so the run stays short.
        func fullScan(_ ordered: [Stub], _ requests: [StubRequest]) -> () -> Double {
            // Matchers extracted up front so the baseline pays for evaluation, not for copying stubs.
            let matchers = ordered.map(\.matcher)
            return {
                var found = 0
                let elapsed = Stopwatch.time {
                    for request in requests where matchers.contains(where: { $0.matches(request) }) { found += 1 }
                }
                blackHole(found)
                return elapsed / Double(requests.count)
            }
        }
        func build(_ urls: [(method: String, url: URL)]) -> () -> Double {
            {
                let elapsed = Stopwatch.time {
                    for (method, url) in urls {
                        blackHole(StubRequest(method: method, url: url, headers: ["Accept": "image/webp,*/*"]))
                    }
                }
                return elapsed / Double(urls.count)
            }
        }
        let sparse = { (requests: [StubRequest]) in stride(from: 0, to: requests.count, by: 16).map { requests[$0] } }
        let cases = [
            SideBySide.Case(name: "index-100", sample: indexed(smallRegistry, small.requests)),
            SideBySide.Case(name: "index-10k", sample: indexed(largeRegistry, large.requests)),
            // The same registry with a small working set: what is left when caches stay warm.
            SideBySide.Case(name: "index-10k-hot", sample: indexed(largeRegistry, Array(repeating: Array(large.requests.prefix(64)), count: 16).flatMap { $0 })),
            SideBySide.Case(name: "scan-100", sample: fullScan(smallOrdered, small.requests)),
            SideBySide.Case(name: "scan-10k", sample: fullScan(largeOrdered, sparse(large.requests))),
            SideBySide.Case(name: "build", sample: build(large.urls)),
        ]
        let results = try SideBySide(cases: cases).run(rounds: rounds, warmup: 5)

        Report.heading("Matching: StubRegistry.match(_:) on pre-built StubRequests (issue 2)")
        print("""
            \(requestCount) requests per sample (\(Int(Double(smallHits) * 100 / Double(requestCount)))% hits with 100 stubs, \
            \(Int(Double(largeHits) * 100 / Double(requestCount)))% with 10,000); median of \(rounds) samples per case, \
            cases interleaved round by round.
            Stubs: 13 in 20 pin host+extension+path over img{N}.example.com, 2 in 20 `*.cdn{N}.example.com` globs,
            3 in 20 method-pinned API stubs, 1 in 20 host+path prefix; \(MatchingWorkload.unpinnedCount) unpinned \
            path-prefix stubs in both sizes; \(MatchingWorkload.stubsPerHost) stubs per host.
            """)
        func row(_ label: String, _ key: String) -> [String] {
            let samples = results[key]!
            return [label, Report.duration(samples.median), Report.spread(samples)]
        }
        Report.table(header: ["case", "median / request", "p25 .. p75"], rows: [
            row("100 stubs, index (match)", "index-100"),
            row("10,000 stubs, index (match)", "index-10k"),
            row("10,000 stubs, index, 64 distinct requests", "index-10k-hot"),
            row("100 stubs, full scan", "scan-100"),
            row("10,000 stubs, full scan", "scan-10k"),
            row("StubRequest(method:url:headers:) build", "build"),
        ])
        let index100 = results["index-100"]!.median
        let index10k = results["index-10k"]!.median
        let scan10k = results["scan-10k"]!.median
        print("")
        print("ratio 10,000 / 100 stubs (index):      \(Report.ratio(index10k / index100))")
        print("ratio full scan / index at 10,000:     \(Report.ratio(scan10k / index10k))")
        print("ratio full scan 10,000 / 100:          \(Report.ratio(scan10k / results["scan-100"]!.median))")
        print("")
        report.target("10,000 stubs cost at most 2x 100 stubs", measured: Report.ratio(index10k / index100), passed: index10k <= 2 * index100)
        report.target(
            "a match takes under 5 µs (10,000 stubs, median)", measured: Report.duration(index10k),
            passed: index10k < 5_000 && index100 < 5_000
        )
    }
}
