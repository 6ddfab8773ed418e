import ArgumentParser
import Foundation
import Logging
import Understudy
import UnderstudyHAR
import UnderstudyImages
import UnderstudySupport
import UnderstudyServer

extension UnderstudyCommand {
    /// `understudy serve [DIR ...]`: the stub server, as an origin and a forward proxy.
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Serve stub directories over HTTP (origin server and forward proxy).",
            discussion: "Prints one ready line; SIGINT or SIGTERM stops it cleanly (exit 0)."
        )

        @Argument(help: "Stub directories or files (default: Stubs, unless --wiremock is given).")
        var directories: [String] = []

        @Option(name: .customLong("wiremock"), help: ArgumentHelp(
            "A WireMock directory (mappings/ and __files/) to serve as well; repeatable. Loaded after the stub directories.",
            valueName: "dir"
        ))
        var wireMockDirectories: [String] = []

        @OptionGroup var wireMock: WireMockOptions

        @Option(name: .customLong("proxy-unmatched"), help: "Forward unmatched requests to this URL instead of answering 404.")
        var proxyUnmatched: String?

        @Option(help: "Record every interaction, with bodies, to this HAR file (rewritten atomically after each one).")
        var record: String?

        @Option(name: .customLong("journal-limit"), help: "Journal entries kept; older ones are dropped and counted.")
        var journalLimit = 100_000

        @Option(name: .customLong("journal-bytes"), help: ArgumentHelp(
            "About the most memory the journal's entries may hold; older ones are dropped and counted (default 4 MiB).",
            valueName: "bytes"
        ))
        var journalBytes = Self.defaultJournalBytes

        /// The journal's default byte bound: what keeps the server under `make bench-server`'s
        /// resident-memory target after any of its rows (many distinct URLs, a header differing
        /// per request, over HTTP/1.1, TLS and h2). Benchmarks/README.md gives the figures.
        static let defaultJournalBytes = 4 * 1024 * 1024

        @Option(name: .customLong("max-body"), help: "The largest request body accepted, in bytes.")
        var maxBody = 10 * 1024 * 1024

        @Option(help: ArgumentHelp(
            "Deliver every response on this network profile (latency, then the body at its rate) unless its stub names its own.",
            valueName: "profile"
        ))
        var network: String?

        @Option(help: ArgumentHelp(
            "Seed the draws of chance: and of random delays, so that the same requests in the same order draw the same (a seed of the server's own by default).",
            valueName: "n"
        ))
        var seed: UInt64?

        @Option(help: ArgumentHelp(
            "Do this to connections before their first request: disconnect-at-start (closed unread) or stall-at-start (never read).",
            valueName: "fault"
        ))
        var fault: String?

        @Option(help: ArgumentHelp("The share of connections --fault happens to, from 0 to 1 (default 1).", valueName: "share"))
        var faultChance: Double?

        @Flag(help: "Serve the image hazards (understudy hazards) under /hazards/, beside any stubs.")
        var hazards = false

        @OptionGroup var listen: ListenOptions

        @OptionGroup var tls: TLSOptions

        func validate() throws {
            try wireMock.validate()
            if let proxyUnmatched, URL(string: proxyUnmatched)?.host == nil {
                throw ValidationError("--proxy-unmatched '\(proxyUnmatched)' is not an absolute URL; expected something like http://127.0.0.1:8081")
            }
            if let proxyAll = wireMock.proxyAll {
                guard URL(string: proxyAll)?.host != nil else {
                    throw ValidationError("--proxy-all '\(proxyAll)' is not an absolute URL; expected something like http://127.0.0.1:8081")
                }
                if let proxyUnmatched, proxyUnmatched != proxyAll {
                    throw ValidationError("--proxy-all \(proxyAll) and --proxy-unmatched \(proxyUnmatched) name two upstreams; give one")
                }
            }
            guard journalLimit >= 1 else { throw ValidationError("--journal-limit must be at least 1, not \(journalLimit)") }
            guard journalBytes >= 1 else { throw ValidationError("--journal-bytes must be at least 1, not \(journalBytes)") }
            guard maxBody >= 0 else { throw ValidationError("--max-body must be 0 or more bytes, not \(maxBody)") }
            _ = try connectionFault()
            if let network, NetworkProfile.named(network) == nil {
                throw ValidationError("--network: unknown network profile '\(network)'; expected one of \(NetworkProfile.names.joined(separator: ", "))")
            }
        }

        func run() async throws {
            // WireMock's root: --root-dir, or the current directory when it has WireMock's
            // layout and nothing else is given, as WireMock's image serves it.
            var wireMockSources = wireMockDirectories
            if let root = wireMock.rootDirectory {
                do {
                    try WireMockOptions.prepareRoot(root)
                } catch {
                    FileHandle.standardError.write(Data("--root-dir \(root): \(error.localizedDescription)\n".utf8))
                    throw ExitCode(2)
                }
                wireMockSources.insert(root, at: 0)
            } else if directories.isEmpty, wireMockDirectories.isEmpty, WireMockOptions.hasWireMockLayout(".") {
                wireMockSources = ["."]
            }
            // With --hazards alone there is nothing else to serve: no Stubs directory is needed.
            let stubSources = directories.isEmpty && wireMockSources.isEmpty && !hazards ? ["Stubs"] : directories
            let sources = stubSources + wireMockSources
            let kept = wireMock.noRequestJournal ? 0 : wireMock.maxJournalEntries ?? journalLimit
            let registry = StubRegistry(journalLimit: kept, journalByteLimit: journalBytes, seed: seed)
            for (index, source) in sources.enumerated() {
                do {
                    if index < stubSources.count {
                        try registry.load(from: URL(fileURLWithPath: source))
                    } else {
                        try registry.load(wireMock: URL(fileURLWithPath: source), templatesEveryResponse: wireMock.globalResponseTemplating)
                    }
                } catch {
                    FileHandle.standardError.write(Data("\(error)\n".utf8))
                    throw ExitCode(2)
                }
            }
            if hazards { registry.stubHazards(under: "/hazards") }
            let logger = ServeLogHandler.logger(format: listen.log)
            let recorder = try record.map { path in
                let output = URL(fileURLWithPath: path)
                let recorder = HARRecorder(registry: registry, output: output, onWriteError: { error in
                    logger.error("cannot write \(output.path): \(error)")
                })
                do {
                    try recorder.flush()
                } catch {
                    FileHandle.standardError.write(Data("cannot write \(output.path): \(error)\n".utf8))
                    throw ExitCode(1)
                }
                return recorder
            }
            // Not recording: nothing to tell but the log, so the server skips the call.
            var onInteraction: (@Sendable (Interaction) -> Void)?
            if let recorder {
                onInteraction = { _ in recorder.interactionFinished() }
            }
            let configuration = StubServer.Configuration(
                maxBodySize: maxBody,
                // WireMock's --proxy-all is a proxy mapping below every stub: what no stub matches.
                proxyUnmatched: (proxyUnmatched ?? wireMock.proxyAll).flatMap(URL.init(string:)),
                adminToken: listen.adminToken,
                onInteraction: onInteraction,
                logger: logger,
                network: network.flatMap(NetworkProfile.named)
            )
            var configured = listen.applyingLimits(to: configuration)
            configured.connectionFault = try connectionFault()
            try await serveUntilSignalled(registry, host: listen.host, port: listen.port, configuration: configured, source: (sources + (hazards ? ["/hazards/"] : [])).joined(separator: ", "), tls: tls)
            try recorder?.flush()
        }
    }
}

extension UnderstudyCommand.Serve {
    /// `--fault` and `--fault-chance` as a connection fault, or `nil` without `--fault`.
    func connectionFault() throws -> ConnectionFault? {
        let names = ConnectionFault.Kind.allCases.map(\.rawValue).joined(separator: ", ")
        if let faultChance, !(0...1).contains(faultChance) {
            throw ValidationError("--fault-chance: \(faultChance) is not a share; expected a number from 0 to 1")
        }
        guard let fault else {
            if faultChance != nil { throw ValidationError("--fault-chance needs --fault (\(names))") }
            return nil
        }
        guard let kind = ConnectionFault.Kind(rawValue: fault) else {
            throw ValidationError("--fault: unknown connection fault '\(fault)'; expected one of \(names)")
        }
        return ConnectionFault(kind, chance: faultChance ?? 1)
    }
}

/// The `--log` choices.
enum ServeLogFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json, quiet
}

