import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import Understudy
import UnderstudyServer

/// What the ``StubbedTrait`` (`.stubbed`) gives the running test: its own registry, a session
/// answered by it and, with `.stubbed(server: true)`, a server serving it.
///
/// They are task-locals, so code the test calls finds them too, in child tasks and `Task {}` as
/// well (not in `Task.detached`, which inherits no task-locals), and tests running in parallel
/// each see their own.
///
/// ```swift
/// @Test(.stubbed) func loadsTheAvatar() async throws {
///     Stubbed.registry.stub(.path("/avatar.png"), response: .file(avatarURL))
///     let loader = AvatarLoader(session: Stubbed.session)
///     _ = try await loader.load()
///     expectRequested(Stubbed.registry, .path("/avatar.png"), times: 1)
/// }
/// ```
public enum Stubbed {
    /// The running test's scope; `nil` outside a test with the trait.
    @TaskLocal static var current: StubbedScope?

    /// This test's stubs, fresh for every test (and every argument of a parameterised test).
    ///
    /// Outside a test with the `.stubbed` trait this records an issue saying so and returns a
    /// registry of its own, so the mistake fails the test instead of the whole run.
    public static var registry: StubRegistry {
        guard let current else {
            Issue.record(Comment(rawValue: missingTrait("Stubbed.registry")))
            return StubRegistry()
        }
        return current.registry
    }

    /// A session whose requests are answered in-process by ``registry``, even requests for
    /// ``server``'s URL; use any other client to go over the wire.
    ///
    /// Outside a test with the `.stubbed` trait this records an issue saying so and returns a
    /// session answered by a registry of its own.
    public static var session: URLSession {
        guard let current else {
            Issue.record(Comment(rawValue: missingTrait("Stubbed.session")))
            return URLSession(configuration: .stubbed(by: StubRegistry()))
        }
        return current.session
    }

    /// The server serving ``registry`` on 127.0.0.1 (a free port), when the trait was given
    /// `server: true`; `nil` otherwise.
    public static var server: StubServer? {
        current?.server
    }

    private static func missingTrait(_ name: String) -> String {
        "\(name) was read outside a test with the .stubbed trait; add .stubbed to the test or its suite"
    }
}
