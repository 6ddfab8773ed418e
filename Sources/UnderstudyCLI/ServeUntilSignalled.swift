import ArgumentParser
import Foundation
import Understudy
import UnderstudyServer

/// What `serve`, `record` and `replay` share: start the server, print the ready line
/// (`Understudy listening on http://HOST:PORT (N stubs from SOURCE)`, or with HTTPS
/// `... on http://HOST:PORT and https://HOST:TLSPORT (...)`), serve until SIGINT or SIGTERM,
/// then stop cleanly. Free heap memory goes back to the system whenever it has been idle a
/// second (``returnFreeMemoryWhenIdle(_:quiet:)``).
/// - Parameters:
///   - registry: the stubs to serve.
///   - host: the address to bind.
///   - port: the port; 0 picks a free one.
///   - configuration: the server's settings.
///   - source: what the stubs came from, for the ready line.
///   - tls: HTTPS and `CONNECT` interception, when given.
func serveUntilSignalled(
    _ registry: StubRegistry, host: String, port: Int, configuration: StubServer.Configuration, source: String,
    tls: TLSOptions? = nil
) async throws {
    // Caught before the ready line: whoever reads that line may stop the server at once.
    let signals = await TerminationSignals.caught()
    let server: StubServer
    do {
        server = try await start(registry, host: host, port: port, configuration: configuration, tls: tls)
    } catch {
        FileHandle.standardError.write(Data("\(error)\n".utf8))
        throw ExitCode(1)
    }
    let listeners = [server.baseURL, server.httpsURL].compactMap { $0?.absoluteString }.joined(separator: " and ")
    let ready = "Understudy listening on \(listeners) (\(registry.stubs.count) stubs from \(source))\n"
    FileHandle.standardOutput.write(Data(ready.utf8))
    let memory = Task { await returnFreeMemoryWhenIdle(registry.journal) }
    await signals.wait()
    memory.cancel()
    try await server.stop()
}

/// Starts the server; with TLS options, with HTTPS when `--tls-port` is given and with
/// `CONNECT` interception always (the local CA is made on the first intercepted `CONNECT`).
private func start(
    _ registry: StubRegistry, host: String, port: Int, configuration: StubServer.Configuration, tls: TLSOptions?
) async throws -> StubServer {
    guard let tls else {
        return try await StubServer.start(serving: registry, host: host, port: port, configuration: configuration)
    }
    return try await StubServer.start(
        serving: registry, host: host, port: port, configuration: tls.applyingRoutes(to: configuration), tls: tls.tls, tlsPort: tls.tlsPort
    )
}
