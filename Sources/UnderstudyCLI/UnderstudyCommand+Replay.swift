import ArgumentParser
import Foundation
import Logging
import Understudy
import UnderstudyHAR
import UnderstudyServer

extension UnderstudyCommand {
    /// `understudy replay FILE.har`: serves a recorded session's responses.
    struct Replay: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Serve the responses recorded in a HAR file.",
            discussion: """
                Requests with the same match key share one stub whose responses are the recorded ones \
                in order, the last repeating. Unrecorded requests get a 404 listing the nearest recorded \
                requests, or go to --proxy-unmatched. Prints one ready line; SIGINT or SIGTERM stops it \
                cleanly (exit 0).
                """
        )

        @Argument(help: "The HAR file (HAR 1.2, as Understudy, mitmproxy or a browser writes it).")
        var file: String

        @Option(help: "What makes requests the same: a comma-separated list of method, url, host, body, header:NAME.")
        var match = HARMatchKey.default.description

        @Flag(help: "Answer every unrecorded request with 404 and the nearest recorded requests (the default; refuses --proxy-unmatched).")
        var strict = false

        @Option(name: .customLong("proxy-unmatched"), help: "Forward unrecorded requests to this URL instead of answering 404.")
        var proxyUnmatched: String?

        @OptionGroup var listen: ListenOptions

        func validate() throws {
            if let proxyUnmatched, URL(string: proxyUnmatched)?.host == nil {
                throw ValidationError("--proxy-unmatched '\(proxyUnmatched)' is not an absolute URL; expected something like http://127.0.0.1:8081")
            }
            if strict, proxyUnmatched != nil {
                throw ValidationError("--strict answers unrecorded requests with 404; it cannot be combined with --proxy-unmatched")
            }
            do {
                _ = try HARMatchKey(parsing: match)
            } catch {
                throw ValidationError("--match: \(error)")
            }
        }

        func run() async throws {
            let registry = StubRegistry(journalLimit: 100_000, journalByteLimit: Serve.defaultJournalBytes)
            do {
                try registry.load(har: URL(fileURLWithPath: file), matching: HARMatchKey(parsing: match))
            } catch {
                FileHandle.standardError.write(Data("\(error)\n".utf8))
                throw ExitCode(2)
            }
            let configuration = StubServer.Configuration(
                proxyUnmatched: strict ? nil : proxyUnmatched.flatMap(URL.init(string:)),
                adminToken: listen.adminToken,
                logger: ServeLogHandler.logger(format: listen.log)
            )
            try await serveUntilSignalled(registry, host: listen.host, port: listen.port, configuration: listen.applyingLimits(to: configuration), source: file)
        }
    }
}
