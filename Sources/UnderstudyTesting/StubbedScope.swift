import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Understudy
import UnderstudyServer
import UnderstudyURLProtocol

/// One test's stubs, session and server, from the start of the test to its end.
final class StubbedScope: Sendable {
    let registry: StubRegistry
    let session: URLSession
    let server: StubServer?

    private init(registry: StubRegistry, session: URLSession, server: StubServer?) {
        self.registry = registry
        self.session = session
        self.server = server
    }

    /// A fresh registry with the stub files loaded, its session and, when asked, its server.
    static func open(loading stubFiles: URL?, startingServer: Bool, network: NetworkProfile? = nil) async throws -> StubbedScope {
        let registry = StubRegistry()
        if let stubFiles {
            try registry.load(from: stubFiles)
        }
        let server = startingServer
            ? try await StubServer.start(serving: registry, configuration: StubServer.Configuration(network: network)) : nil
        return StubbedScope(registry: registry, session: URLSession(configuration: .stubbed(by: registry, network: network)), server: server)
    }

    /// Stops the server and cancels what the session still has in flight, so that the journal
    /// is final when the test's end is checked.
    func close() async {
        session.invalidateAndCancel()
        try? await server?.stop()
    }
}
