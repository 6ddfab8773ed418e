import ArgumentParser

/// The options `serve`, `record` and `replay` share: where to listen, the admin token, the log.
struct ListenOptions: ParsableArguments {
    @Option(help: "The address to listen on; a non-loopback address needs --admin-token.")
    var host = "127.0.0.1"

    @Option(help: "The port; 0 picks a free one.")
    var port = 8080

    @Option(name: .customLong("admin-token"), help: "The bearer token the admin API requires.")
    var adminToken: String?

    @Option(help: "Request log: text, json or quiet.")
    var log: ServeLogFormat = .text

    func validate() throws {
        guard (0...65_535).contains(port) else {
            throw ValidationError("--port \(port) is out of range; expected 0 to 65535")
        }
    }
}
