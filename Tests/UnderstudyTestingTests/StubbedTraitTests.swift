import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import Understudy
import UnderstudyServer
import UnderstudyTesting

/// What `.stubbed` gives a test: its own registry, a session answered by it, a server when asked.
@Suite(.stubbed) struct StubbedTraitTests {
    @Test func theSessionIsAnsweredByTheTestsRegistry() async throws {
        Stubbed.registry.stub(.path("/hello"), response: .text("hi"))
        let (data, response) = try await Stubbed.session.data(from: URL(string: "http://x.test/hello")!)
        #expect(String(decoding: data, as: UTF8.self) == "hi")
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(Stubbed.registry.journal.interactions.map(\.request.url.absoluteString) == ["http://x.test/hello"])
        #expect(Stubbed.registry.journal.interactions.map(\.transport) == [.inProcess])
        #expect(Stubbed.server == nil)
    }

    @Test func codeCalledFromTheTestFindsTheSameRegistryInChildTasks() async throws {
        let registry = Stubbed.registry
        registry.stub(.pathPrefix("/n/"), response: .text("n"))
        let seen = try await withThrowingTaskGroup(of: ObjectIdentifier.self) { group in
            for index in 0..<4 {
                group.addTask {
                    _ = try await Stubbed.session.data(from: URL(string: "http://x.test/n/\(index)")!)
                    return ObjectIdentifier(Stubbed.registry)
                }
            }
            return try await group.reduce(into: Set<ObjectIdentifier>()) { $0.insert($1) }
        }
        #expect(seen == [ObjectIdentifier(registry)])
        #expect(registry.journal.count(matching: .pathPrefix("/n/")) == 4)
    }

    @Test(.stubbed(server: true)) func aServerServesTheSameRegistry() async throws {
        let server = try #require(Stubbed.server)
        #expect(server.baseURL.host == "127.0.0.1")
        #expect(server.registry === Stubbed.registry)
        Stubbed.registry.stub(.path("/over/the/wire"), response: .text("wire"))
        // A plain session, not `Stubbed.session` (which answers in-process), goes over the socket.
        let plain = URLSession(configuration: .ephemeral)
        defer { plain.invalidateAndCancel() }
        let (data, response) = try await plain.data(from: server.baseURL.appendingPathComponent("over/the/wire"))
        #expect(String(decoding: data, as: UTF8.self) == "wire")
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(Stubbed.registry.journal.interactions.map(\.transport) == [.server])
    }

    @Test(.stubbed(from: "Tests/UnderstudyTestingTests/Fixtures/Stubs"))
    func stubFilesLoadFromAPathRelativeToThePackage() async throws {
        #expect(Stubbed.registry.stubs.map(\.name) == ["avatar"])
        let (data, response) = try await Stubbed.session.data(from: URL(string: "https://img.example.com/avatar.png")!)
        #expect(String(decoding: data, as: UTF8.self) == "not really a PNG")
        #expect((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type") == "image/png")
        expectRequested(Stubbed.registry, .path("/avatar.png"), times: 1)
    }
}

@Suite(.stubbed(from: "Tests/UnderstudyTestingTests/Fixtures/Stubs"))
struct NearestTraitTests {
    @Test func theSuitesTraitReachesItsTests() {
        #expect(Stubbed.registry.stubs.map(\.name) == ["avatar"])
        #expect(Stubbed.server == nil)
    }

    @Test(.stubbed(server: true)) func aTestsOwnTraitReplacesTheSuites() {
        #expect(Stubbed.registry.stubs.isEmpty)
        #expect(Stubbed.server != nil)
    }
}
