import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import Understudy
import UnderstudyImages
import UnderstudySupport
import UnderstudyTesting

/// Tests run in parallel without sharing stubs or journals: each case stubs the same path with
/// its own answer and must get only its own answers and see only its own requests. A shared
/// registry or journal would hand a case another's body or put another's host in its journal.
/// `make test-tsan` runs this suite under ThreadSanitizer.
@Suite struct ParallelIsolationTests {
    static let requestsPerCase = 3

    @Test(.stubbed, arguments: 0..<200)
    func inProcessCasesSeeOnlyTheirOwnStubsAndRequests(index: Int) async throws {
        let host = "case\(index).test"
        Stubbed.registry.stub(.path("/item"), named: "item-\(index)", response: .text("\(index)"))
        for round in 0..<Self.requestsPerCase {
            // Through a helper, from a child task: both find this case's session by task-local.
            let body = try await Task { try await Self.fetch(URL(string: "http://\(host)/item?round=\(round)")!) }.value
            #expect(body == "\(index)")
            await Task.yield()
        }
        Self.expectOnlyOwnRequests(host: host, transport: .inProcess, index: index)
    }

    @Test(.stubbed(server: true), arguments: 0..<40)
    func casesWithTheirOwnServerSeeOnlyTheirOwnRequests(index: Int) async throws {
        let server = try #require(Stubbed.server)
        Stubbed.registry.stub(.path("/item"), named: "item-\(index)", response: .text("\(index)"))
        let plain = URLSession(configuration: .ephemeral)
        defer { plain.invalidateAndCancel() }
        for round in 0..<Self.requestsPerCase {
            let (data, _) = try await plain.data(from: URL(string: "\(server.baseURL)/item?round=\(round)")!)
            #expect(String(decoding: data, as: UTF8.self) == "\(index)")
        }
        #expect(server.registry === Stubbed.registry)
        Self.expectOnlyOwnRequests(host: "127.0.0.1", transport: .server, index: index)
    }

    /// 200 scopes of the trait open at once (a barrier holds each until all have arrived), each
    /// with its own stubs; this shows the isolation under real overlap, whatever width the test
    /// runner chooses for the parameterised tests above.
    @Test func twoHundredScopesOpenAtOnceStayApart() async throws {
        let test = try #require(Test.current)
        let trait: StubbedTrait = .stubbed
        let scopes = 200
        let arrived = LockedState(0)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<scopes {
                group.addTask {
                    try await trait.provideScope(for: test, testCase: Test.Case.current) {
                        Stubbed.registry.stub(.path("/item"), named: "item-\(index)", response: .text("\(index)"))
                        arrived.withLock { $0 += 1 }
                        let deadline = ContinuousClock.now + .seconds(60)
                        while arrived.withLock({ $0 }) < scopes, ContinuousClock.now < deadline {
                            try await Task.sleep(for: .milliseconds(2))
                        }
                        #expect(arrived.withLock { $0 } == scopes, "only some scopes were open at once")
                        let body = try await Self.fetch(URL(string: "http://scope\(index).test/item")!)
                        #expect(body == "\(index)")
                        Self.expectOnlyOwnRequests(host: "scope\(index).test", transport: .inProcess, index: index, requests: 1)
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    static func fetch(_ url: URL) async throws -> String {
        let (data, _) = try await Stubbed.session.data(from: url)
        return String(decoding: data, as: UTF8.self)
    }

    static func expectOnlyOwnRequests(
        host: String, transport: Interaction.Transport, index: Int, requests: Int = requestsPerCase,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let interactions = Stubbed.registry.journal.interactions
        #expect(interactions.count == requests, sourceLocation: sourceLocation)
        #expect(Set(interactions.map { $0.request.url.host ?? "" }) == [host], sourceLocation: sourceLocation)
        #expect(Set(interactions.compactMap(\.stubName)) == ["item-\(index)"], sourceLocation: sourceLocation)
        #expect(interactions.allSatisfy { $0.transport == transport && $0.status == 200 }, sourceLocation: sourceLocation)
        #expect(Stubbed.registry.stubs.count == 1, sourceLocation: sourceLocation)
    }
}
