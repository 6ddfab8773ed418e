import ArgumentParser
import Understudy
import UnderstudyServer

/// The options `serve`, `record` and `replay` share: where to listen, the admin token, the log,
/// and the limits on request heads.
struct ListenOptions: ParsableArguments {
    @Option(name: [.customLong("host"), .customLong("bind-address")], help: "The address to listen on; a non-loopback address needs --admin-token.")
    var host = "127.0.0.1"

    @Option(help: "The port; 0 picks a free one.")
    var port = 8080

    @Option(name: .customLong("admin-token"), help: "The bearer token the admin API requires.")
    var adminToken: String?

    @Option(help: "Request log: text, json or quiet.")
    var log: ServeLogFormat = .text

    @Option(name: .customLong("max-header-count"), help: "The most header fields a request may have; more get 431.")
    var maxHeaderCount = 256

    @Option(name: .customLong("head-timeout"), help: "How long a connection may take to send a request head (or stay idle between requests), e.g. 30s or 500ms.")
    var headTimeout = "30s"

    @Option(name: .customLong("body-timeout"), help: "How long a request body may take to arrive in full, from its head, e.g. 30s; then 408.")
    var bodyTimeout = "30s"

    @Flag(name: .customLong("no-http2"), help: "Speak HTTP/1.1 only: no HTTP/2 with prior knowledge (h2c) on the plain port.")
    var noHTTP2 = false

    func validate() throws {
        guard (0...65_535).contains(port) else {
            throw ValidationError("--port \(port) is out of range; expected 0 to 65535")
        }
        guard maxHeaderCount >= 1 else {
            throw ValidationError("--max-header-count must be at least 1, not \(maxHeaderCount)")
        }
        guard let timeout = Delay.parseDuration(headTimeout), timeout > .zero else {
            throw ValidationError("--head-timeout '\(headTimeout)' is not a positive duration; expected something like 30s or 500ms")
        }
        guard let timeout = Delay.parseDuration(bodyTimeout), timeout > .zero else {
            throw ValidationError("--body-timeout '\(bodyTimeout)' is not a positive duration; expected something like 30s or 500ms")
        }
    }

    /// `configuration` with these options' limits on request heads.
    func applyingLimits(to configuration: StubServer.Configuration) -> StubServer.Configuration {
        var configuration = configuration
        configuration.maxHeaderCount = maxHeaderCount
        configuration.requestHeadTimeout = Delay.parseDuration(headTimeout) ?? configuration.requestHeadTimeout
        configuration.bodyTimeout = Delay.parseDuration(bodyTimeout) ?? configuration.bodyTimeout
        configuration.http2 = !noHTTP2
        return configuration
    }
}
