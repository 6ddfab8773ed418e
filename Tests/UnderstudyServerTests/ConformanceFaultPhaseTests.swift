import Foundation
import Understudy
import UnderstudyServer
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Faults by phase through both transports: the in-process transport fails each request with
/// the `URLError` a URLSession client gets from the server on the wire, and both journal it
/// alike.
final class ConformanceFaultPhaseTests: XCTestCase {
    struct Case {
        let path: String
        let response: StubResponse
        var method = "GET"
        var upload: Data?
        var timeout: TimeInterval = 10
        /// The code, or `nil` for a whole 200.
        let code: URLError.Code?
        let outcome: String
    }

    static let body = Data(repeating: 0x62, count: 5_000)

    /// On Linux; Apple's URLSession names a close after part of a body `networkConnectionLost`.
    static let partialBody: URLError.Code = {
        #if canImport(FoundationNetworking)
        return .unknown
        #else
        return .networkConnectionLost
        #endif
    }()

    static let cases: [Case] = [
        Case(path: "/after-request", response: .data(body).faulted(.disconnectAfterRequest),
             code: .badServerResponse, outcome: "fault disconnect-after-request"),
        Case(path: "/request-body", response: .data(body).faulted(.disconnectDuringRequestBody(after: 100)), method: "POST",
             upload: Data(count: 200_000), code: .networkConnectionLost, outcome: "fault disconnect-during-request-body(after: 100)"),
        Case(path: "/small-request-body", response: .data(body).faulted(.disconnectDuringRequestBody(after: 100)), method: "POST",
             upload: Data(count: 50), code: nil, outcome: "completed"),
        Case(path: "/response-body", response: .data(body).faulted(.disconnectDuringResponseBody(after: 100)),
             code: partialBody, outcome: "fault disconnect-during-response-body(after: 100)"),
        Case(path: "/reset-body", response: .data(body).faulted(.resetDuringResponseBody(after: 100)),
             code: .networkConnectionLost, outcome: "fault reset-during-response-body(after: 100)"),
        Case(path: "/timeout", response: .data(body).faulted(.timeout(after: .milliseconds(300))),
             code: .badServerResponse, outcome: "fault timeout(after: 300ms)"),
        Case(path: "/timeout-long", response: .data(body).faulted(.timeout(after: .seconds(30))), timeout: 1,
             code: .timedOut, outcome: "cancelled"),
        Case(path: "/shutdown-output", response: .data(body).faulted(.shutdownOutputAtEnd),
             code: nil, outcome: "fault shutdown-output-at-end"),
        Case(path: "/slow-close", response: .data(body).faulted(.slowClose(.milliseconds(200))),
             code: nil, outcome: "fault slow-close(200ms)"),
    ]

    func testEachPhaseFailsBothTransportsWithTheCodeTheWireGives() async throws {
        let observations = try await TransportPair.observe({ stubs in
            for item in Self.cases { stubs.stub(.path(item.path), named: String(item.path.dropFirst()), response: item.response) }
        }) { client in
            for item in Self.cases { await client.fetch(item.path, method: item.method, body: item.upload, timeout: item.timeout) }
        }
        if let differences = TransportPair.differences(observations, compareResults: false) {
            XCTFail("the journals differ:\n\(differences)")
        }
        for observed in observations {
            for (item, result) in zip(Self.cases, observed.results) {
                if let code = item.code {
                    XCTAssertEqual(result.errorCode, code, "\(observed.transport) \(item.path): \(result)")
                } else {
                    XCTAssertEqual(result.status, 200, "\(observed.transport) \(item.path): \(result)")
                    XCTAssertEqual(result.body, Self.body, "\(observed.transport) \(item.path)")
                }
            }
            XCTAssertEqual(observed.journal.map(\.outcome), Self.cases.map(\.outcome), observed.transport.rawValue)
        }
        let journal = observations[0].journal
        XCTAssertEqual(journal.map(\.bodyBytesSent), [0, 0, 5_000, 100, 100, 0, 0, 5_000, 5_000])
        XCTAssertEqual(journal.map(\.status), [nil, nil, 200, 200, 200, nil, nil, 200, 200])
        for observed in observations {
            XCTAssertGreaterThanOrEqual(observed.durations[5], 0.25, "\(observed.transport): timeout waits its time")
            XCTAssertLessThan(observed.durations[6], 5, "\(observed.transport): the client's own timeout comes first")
        }
    }
}
