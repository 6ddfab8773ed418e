import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import Understudy
import UnderstudyServer
import UnderstudyTesting

/// `.stubbed(network:)`: the test's session and server deliver on the profile.
@Suite struct StubbedNetworkTests {
    static let profile = NetworkProfile.custom(latency: .milliseconds(250), rate: .kilobitsPerSecond(8_000))

    @Test(.stubbed(server: true, network: StubbedNetworkTests.profile)) func theSessionAndTheServerDeliverOnTheProfile() async throws {
        Stubbed.registry.stub(.path("/a"), response: .text("a"))
        let clock = ContinuousClock()
        let started = clock.now
        _ = try await Stubbed.session.data(from: URL(string: "http://x.test/a")!)
        #expect(clock.now - started >= .milliseconds(250))
        let server = try #require(Stubbed.server)
        #expect(server.network == Self.profile)
        _ = try await URLSession(configuration: .ephemeral).data(from: server.baseURL.appendingPathComponent("a"))
        #expect(Stubbed.registry.journal.interactions.map(\.network) == [Self.profile, Self.profile])
        #expect(Stubbed.registry.journal.interactions.allSatisfy { $0.timing.wait >= .milliseconds(250) })
    }

    @Test(.stubbed) func withoutANetworkTheSessionIsAtFullSpeed() async throws {
        Stubbed.registry.stub(.path("/a"), response: .text("a"))
        _ = try await Stubbed.session.data(from: URL(string: "http://x.test/a")!)
        #expect(Stubbed.registry.journal.interactions.map(\.network) == [nil])
    }
}
