import Foundation
import Understudy
import UnderstudyServer
import XCTest
import UnderstudyTestSupport

/// Faults a server does to a connection before its first request (SPEC 21), as curl meets them,
/// drawn by chance from the registry's seed, and set at run time through the admin API.
final class ConnectionFaultTests: XCTestCase {
    private static func stubs(seed: UInt64 = 7) -> StubRegistry {
        let stubs = StubRegistry(seed: seed)
        stubs.stub(.path("/a.png"), named: "a", response: .data(Data("png".utf8), contentType: "image/png"))
        return stubs
    }

    func testDisconnectAtStartClosesUnreadAndStallAtStartNeverAnswers() async throws {
        let stubs = Self.stubs()
        var configuration = StubServer.Configuration()
        configuration.connectionFault = ConnectionFault(.disconnectAtStart)
        try await withServer(stubs, configuration: configuration) { server in
            let closed = try curl(["\(server.baseURL.absoluteString)/a.png"], maxTime: 5)
            XCTAssertTrue([52, 56].contains(closed.status), "empty reply or a reset, not \(closed.status): \(closed.stderr)")
            stubs.connectionFault = ConnectionFault(.stallAtStart)
            let stalled = try curl(["\(server.baseURL.absoluteString)/a.png"], maxTime: 1)
            XCTAssertEqual(stalled.status, 28, "curl's own timeout: \(stalled.stderr)")
            stubs.connectionFault = nil
            let answered = try curl(["\(server.baseURL.absoluteString)/a.png"])
            XCTAssertEqual(answered.status, 0)
            XCTAssertEqual(answered.text, "png")
        }
        XCTAssertEqual(stubs.journal.count, 1, "no request reached the stubs on a faulted connection")
    }

    func testTheSameSeedFaultsTheSameConnectionsAndAnotherSeedOthers() async throws {
        func run(seed: UInt64) async throws -> [Int32] {
            let stubs = Self.stubs(seed: seed)
            stubs.connectionFault = ConnectionFault(.disconnectAtStart, chance: 0.5)
            var statuses: [Int32] = []
            try await withServer(stubs) { server in
                for _ in 0..<16 {
                    statuses.append(try curl(["-o", "/dev/null", "\(server.baseURL.absoluteString)/a.png"], maxTime: 5).status == 0 ? 0 : 1)
                }
            }
            return statuses
        }
        let first = try await run(seed: 11)
        let again = try await run(seed: 11)
        let other = try await run(seed: 12)
        XCTAssertEqual(again, first, "the same connections faulted")
        XCTAssertNotEqual(other, first, "another seed, other connections")
        XCTAssertTrue((3...13).contains(first.filter { $0 == 1 }.count), "about half: \(first)")
    }

    func testTheAdminAPISetsShowsAndRefusesConnectionFaults() async throws {
        let stubs = Self.stubs()
        try await withServer(stubs) { server in
            let settings = "\(server.baseURL.absoluteString)/__admin/settings"
            // A chance of 0: set and shown, and no connection of this test's own draws it.
            let set = try curl(["-X", "PUT", "-d", #"{"fault": "stall-at-start", "chance": 0}"#, settings])
            XCTAssertEqual(set.status, 0)
            XCTAssertEqual(stubs.connectionFault, ConnectionFault(.stallAtStart, chance: 0))
            XCTAssertEqual(try curl([settings]).text.trimmingCharacters(in: .whitespacesAndNewlines), #"{"settings":{"chance":0,"fault":"stall-at-start"}}"#)
            let unknown = try curl(["-X", "PUT", "-d", #"{"fault": "explode"}"#, settings])
            XCTAssertTrue(unknown.text.contains("fault: unknown connection fault 'explode'; expected one of disconnect-at-start, stall-at-start, or null"), unknown.text)
            let share = try curl(["-X", "PUT", "-d", #"{"fault": "disconnect-at-start", "chance": 2}"#, settings])
            XCTAssertTrue(share.text.contains("chance: expected a share from 0 to 1"), share.text)
            XCTAssertEqual(stubs.connectionFault, ConnectionFault(.stallAtStart, chance: 0), "a refused body changes nothing")
            _ = try curl(["-X", "PUT", "-d", #"{"fault": null}"#, settings])
            XCTAssertNil(stubs.connectionFault)
        }
    }
}
