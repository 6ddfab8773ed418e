import Foundation
import Understudy
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionConfiguration {
    /// An ephemeral configuration whose requests are answered by `registry`, with no URL cache:
    /// set `urlCache` to have responses cached and revalidated through the stubs.
    ///
    /// ```swift
    /// let session = URLSession(configuration: .stubbed(by: stubs))
    /// let (data, response) = try await session.data(from: URL(string: "https://img.example.com/cat.png")!)
    /// ```
    /// - Parameters:
    ///   - registry: the stubs that answer; the session holds it only weakly.
    ///   - unmatched: what happens to requests no stub matches (default: fail with a report).
    ///   - network: the network responses are delivered on when their stub names none, with
    ///     the server's timing (see ``StubbingOptions/network``); `nil` for full speed.
    public static func stubbed(
        by registry: StubRegistry, unmatched: UnmatchedPolicy = .fail, network: NetworkProfile? = nil
    ) -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        // corelibs gives an ephemeral configuration a 4 MB memory cache, which Understudy would
        // use (see InProcessCache): off unless a test asks for one, as before.
        configuration.urlCache = nil
        configuration.stub(with: registry, unmatched: unmatched, network: network)
        return configuration
    }

    /// Makes this configuration's requests answered by `registry`: prepends the stub protocol,
    /// since sessions consult `protocolClasses` front to back.
    /// - Parameters:
    ///   - registry: the stubs that answer.
    ///   - unmatched: what happens to requests no stub matches.
    ///   - network: the network responses are delivered on when their stub names none.
    public func stub(with registry: StubRegistry, unmatched: UnmatchedPolicy = .fail, network: NetworkProfile? = nil) {
        let options = StubbingOptions(unmatched: unmatched, network: network)
        let stubClass: AnyClass = RegistrySlots.protocolClass(for: registry, options: options)
        protocolClasses = [stubClass] + (protocolClasses ?? []).filter { $0 != stubClass }
    }
}

/// Entry points for sessions you do not configure yourself.
public enum StubURLProtocol {
    /// Registers `registry` for sessions that use the global protocol list, such as
    /// `URLSession.shared`. On Linux this reaches `URLSession.shared` only if called before
    /// the first session is created; prefer `URLSessionConfiguration.stubbed(by:unmatched:network:)`.
    /// - Returns: the registered class, for ``unregister(_:)``.
    @discardableResult
    public static func register(_ registry: StubRegistry, unmatched: UnmatchedPolicy = .fail) -> AnyClass {
        let stubClass = RegistrySlots.protocolClass(for: registry, options: StubbingOptions(unmatched: unmatched))
        _ = URLProtocol.registerClass(stubClass)
        return stubClass
    }

    /// Undoes ``register(_:unmatched:)``.
    public static func unregister(_ stubClass: AnyClass) {
        URLProtocol.unregisterClass(stubClass)
    }
}
