import ArgumentParser
import Foundation
import Understudy
import UnderstudyServer

/// What `serve`, `record` and `replay` share: start the server, print the ready line
/// (`Understudy listening on http://HOST:PORT (N stubs from SOURCE)`), serve until SIGINT or
/// SIGTERM, then stop cleanly.
/// - Parameters:
///   - registry: the stubs to serve.
///   - host: the address to bind.
///   - port: the port; 0 picks a free one.
///   - configuration: the server's settings.
///   - source: what the stubs came from, for the ready line.
func serveUntilSignalled(
    _ registry: StubRegistry, host: String, port: Int, configuration: StubServer.Configuration, source: String
) async throws {
    let server: StubServer
    do {
        server = try await StubServer.start(serving: registry, host: host, port: port, configuration: configuration)
    } catch {
        FileHandle.standardError.write(Data("\(error)\n".utf8))
        throw ExitCode(1)
    }
    let ready = "Understudy listening on \(server.baseURL.absoluteString) (\(registry.stubs.count) stubs from \(source))\n"
    FileHandle.standardOutput.write(Data(ready.utf8))
    await waitForTerminationSignal()
    try await server.stop()
}
