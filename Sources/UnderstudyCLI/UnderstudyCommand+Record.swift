import ArgumentParser
import Foundation
import Logging
import Understudy
import UnderstudyHAR
import UnderstudyServer

extension UnderstudyCommand {
    /// `understudy record --upstream URL --out FILE.har`: a recording reverse proxy;
    /// `understudy record --proxy --out FILE.har`: a recording forward proxy.
    struct Record: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Forward requests to an upstream (or, with --proxy, to their own URLs) and record them, with full bodies, to a HAR file.",
            discussion: """
                The file is rewritten atomically after each interaction and once more on SIGINT or SIGTERM \
                (exit 0), so it is always a complete HAR. Authorization, Proxy-Authorization, Cookie and \
                Set-Cookie values are written as REDACTED unless --keep-secrets is given. With --proxy, \
                point a client's http and https proxy at it and trust the local CA (understudy ca): \
                https requests are intercepted with the CA's leaves and recorded too.
                """
        )

        @Option(help: "The server to record, e.g. http://127.0.0.1:8081.")
        var upstream: String?

        @Flag(help: "Record as a forward proxy: whatever a client sends through it, http and intercepted https.")
        var proxy = false

        @Option(help: "The HAR file to write.")
        var out: String

        @Option(name: .customLong("redact-header"), help: "Also write this header's values as REDACTED (repeatable).")
        var redactHeaders: [String] = []

        @Flag(name: .customLong("keep-secrets"), help: "Keep Authorization, Proxy-Authorization, Cookie and Set-Cookie values.")
        var keepSecrets = false

        @OptionGroup var listen: ListenOptions

        @OptionGroup var tls: TLSOptions

        func validate() throws {
            if proxy {
                guard upstream == nil else { throw ValidationError("--proxy and --upstream exclude each other: a forward proxy sends each request to its own URL") }
                return
            }
            guard let upstream else { throw ValidationError("record needs --upstream URL (a reverse proxy) or --proxy (a forward proxy)") }
            guard let url = URL(string: upstream), url.host != nil, ["http", "https"].contains(url.scheme?.lowercased() ?? "") else {
                throw ValidationError("--upstream '\(upstream)' is not an absolute http(s) URL; expected something like http://127.0.0.1:8081")
            }
        }

        func run() async throws {
            let output = URL(fileURLWithPath: out)
            let logger = ServeLogHandler.logger(format: listen.log)
            let redaction = HARRedaction(extraHeaders: redactHeaders, keepsSecrets: keepSecrets)
            let onWriteError: @Sendable (any Error) -> Void = { error in logger.error("cannot write \(output.path): \(error)") }
            let recorder = upstream.map { HARRecorder(upstream: URL(string: $0)!, output: output, redaction: redaction, onWriteError: onWriteError) }
                ?? HARRecorder(forwardProxyTo: output, redaction: redaction, onWriteError: onWriteError)
            do {
                // An empty but valid HAR from the start: a reader never finds no file or half a file.
                try recorder.flush()
            } catch {
                FileHandle.standardError.write(Data("cannot write \(output.path): \(error)\n".utf8))
                throw ExitCode(1)
            }
            let registry = recorder.registry
            let configuration = StubServer.Configuration(
                adminToken: listen.adminToken,
                onInteraction: { _ in recorder.interactionFinished() },
                logger: logger
            )
            try await serveUntilSignalled(
                registry, host: listen.host, port: listen.port, configuration: listen.applyingLimits(to: configuration),
                source: upstream ?? "a forward proxy", tls: proxy ? tls : nil
            )
            try recorder.flush()
        }
    }
}
