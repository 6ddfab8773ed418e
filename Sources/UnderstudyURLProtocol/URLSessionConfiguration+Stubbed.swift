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
    public static func stubbed(by registry: StubRegistry, unmatched: UnmatchedPolicy = .fail) -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        // corelibs gives an ephemeral configuration a 4 MB memory cache, which Understudy would
        // use (see InProcessCache): off unless a test asks for one, as before.
        configuration.urlCache = nil
        configuration.stub(with: registry, unmatched: unmatched)
        return configuration
    }

    /// Makes this configuration's requests answered by `registry`: prepends the stub protocol,
    /// since sessions consult `protocolClasses` front to back.
    public func stub(with registry: StubRegistry, unmatched: UnmatchedPolicy = .fail) {
        let stubClass: AnyClass = RegistrySlots.protocolClass(for: registry, options: StubbingOptions(unmatched: unmatched))
        protocolClasses = [stubClass] + (protocolClasses ?? []).filter { $0 != stubClass }
    }
}

/// Entry points for sessions you do not configure yourself.
public enum StubURLProtocol {
    /// Registers `registry` for sessions that use the global protocol list, such as
    /// `URLSession.shared`. On Linux this reaches `URLSession.shared` only if called before
    /// the first session is created; prefer `URLSessionConfiguration.stubbed(by:unmatched:)`.
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
