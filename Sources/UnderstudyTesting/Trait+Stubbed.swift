import Foundation
import Testing
import Understudy

extension Trait where Self == StubbedTrait {
    /// Gives every test a fresh ``Stubbed/registry`` and a ``Stubbed/session`` answered by it,
    /// and fails the test for every request no stub matched.
    ///
    /// ```swift
    /// @Suite(.stubbed) struct AvatarTests {
    ///     @Test func loadsTheAvatar() async throws {
    ///         Stubbed.registry.stub(.path("/avatar.png"), response: .file(avatarURL))
    ///         let (data, _) = try await Stubbed.session.data(from: URL(string: "https://img.example.com/avatar.png")!)
    ///         #expect(data.count > 0)
    ///     }
    /// }
    /// ```
    public static var stubbed: Self {
        StubbedTrait(stubFiles: nil, startsServer: false, failsOnUnmatchedRequests: true)
    }

    /// Gives every test a fresh ``Stubbed/registry``, loaded from stub files when `path` is
    /// given, a ``Stubbed/session`` answered by it and, when `server` is true, a
    /// ``Stubbed/server`` serving it on 127.0.0.1.
    ///
    /// ```swift
    /// @Test(.stubbed(from: "Tests/AppTests/Stubs", server: true)) func overTheWire() async throws {
    ///     let url = Stubbed.server!.baseURL.appendingPathComponent("cat.png")
    ///     ...
    /// }
    /// ```
    /// - Parameters:
    ///   - path: a directory of stub files (or one file), loaded afresh for every test. A
    ///     relative path is taken from the package holding the file that names it: the
    ///     nearest directory above `filePath` with a `Package.swift`.
    ///   - server: whether every test also gets its own ``Stubbed/server``.
    ///   - failsOnUnmatchedRequests: whether a request no stub matched fails the test (default
    ///     true); turn it off for tests about what the client does with such a request.
    ///   - network: the network the session and the server deliver on when a stub names none
    ///     (`.slow3G`, ...); `nil` (the default) for full speed.
    ///   - filePath: the file naming `path`; leave the default.
    public static func stubbed(
        from path: String? = nil, server: Bool = false, failsOnUnmatchedRequests: Bool = true,
        network: NetworkProfile? = nil, filePath: String = #filePath
    ) -> Self {
        StubbedTrait(
            stubFiles: path.map { .path($0, filePath: filePath) },
            startsServer: server, failsOnUnmatchedRequests: failsOnUnmatchedRequests, network: network
        )
    }

    /// Gives every test a fresh ``Stubbed/registry`` loaded from the folder `subdirectory` of
    /// `bundle`'s resources (a test target's `Bundle.module`, or an Xcode test bundle, where
    /// there is no `Package.swift` to find files from), and a ``Stubbed/session`` answered by it.
    ///
    /// ```swift
    /// @Suite(.stubbed(from: Bundle.module, subdirectory: "Stubs")) struct FeedTests { ... }
    /// ```
    /// - Parameters:
    ///   - bundle: the bundle holding the stub files, copied whole (`.copy("Stubs")`).
    ///   - subdirectory: the folder in its resources.
    ///   - server: whether every test also gets its own ``Stubbed/server``.
    ///   - failsOnUnmatchedRequests: whether a request no stub matched fails the test.
    ///   - network: the network to deliver on when a stub names none.
    public static func stubbed(
        from bundle: Bundle, subdirectory: String?, server: Bool = false, failsOnUnmatchedRequests: Bool = true,
        network: NetworkProfile? = nil
    ) -> Self {
        StubbedTrait(
            stubFiles: .location(.bundle(bundle, subdirectory: subdirectory)),
            startsServer: server, failsOnUnmatchedRequests: failsOnUnmatchedRequests, network: network
        )
    }
}
