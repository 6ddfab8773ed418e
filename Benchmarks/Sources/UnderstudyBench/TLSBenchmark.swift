import Foundation
@_spi(Benchmarks) import UnderstudyServer

/// Issue 13: what a host's first HTTPS connection costs Understudy before the handshake, a
/// leaf issued by the local CA and its TLS context made, against the cached lookup every later
/// connection does. Target: the first leaf under 5 ms.
struct TLSBenchmark {
    let rounds: Int

    func run(into report: inout Report) throws {
        let provider = try TLSWarmup(authority: try CertificateAuthority.ephemeral())
        try provider.prepare(host: "warm-up.example.com")
        var first = Samples()
        var cached = Samples()
        for round in 0..<rounds {
            let host = "host-\(round).example.com"
            first.append(try Stopwatch.time { blackHole(try provider.prepare(host: host)) })
            cached.append(try Stopwatch.time { blackHole(try provider.prepare(host: host)) })
        }
        Report.heading("TLS: a host's first leaf (local CA, P-256)")
        Report.table(header: ["case", "median", "quartiles"], rows: [
            ["first leaf: issue + TLS context", Report.duration(first.median), Report.spread(first)],
            ["cached (every later connection)", Report.duration(cached.median), Report.spread(cached)],
        ])
        report.target(
            "a host's first leaf (issue + context) under 5 ms",
            measured: Report.duration(first.median), passed: first.median < 5_000_000
        )
    }
}
