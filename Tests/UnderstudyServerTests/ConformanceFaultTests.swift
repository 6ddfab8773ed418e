import Foundation
import Understudy
import UnderstudyServer
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Every fault through both transports. Each must fail the request; the `URLError` code is
/// ``Fault/urlErrorCode`` in-process, and over the wire whatever URLSession itself reports, which
/// on Linux (libcurl underneath) is vaguer for some: the "Faults and networks" article (in-process) and docs/faults.md
/// (over the wire) document both, and they are held to it here. The journal entries must be the
/// same on both transports.
final class ConformanceFaultTests: XCTestCase {
    struct Case {
        let path: String
        let response: StubResponse
        let inProcess: URLError.Code
        /// What URLSession reports over the wire on Linux; on Apple platforms the in-process code.
        let linuxWire: URLError.Code
        let outcome: String
        var timeout: TimeInterval = 10
    }

    static let cases: [Case] = [
        Case(path: "/reset", response: .failure(.connectionReset), inProcess: .networkConnectionLost, linuxWire: .networkConnectionLost,
             outcome: "fault connection-reset"),
        Case(path: "/empty", response: .failure(.emptyResponse), inProcess: .badServerResponse, linuxWire: .badServerResponse,
             outcome: "fault empty-response"),
        Case(path: "/chunk", response: .failure(.malformedChunk), inProcess: .cannotParseResponse, linuxWire: .unknown,
             outcome: "fault malformed-chunk"),
        Case(path: "/garbage", response: .failure(.randomDataThenClose), inProcess: .cannotParseResponse, linuxWire: .unsupportedURL,
             outcome: "fault random-data-then-close"),
        Case(path: "/hang", response: .failure(.noResponse), inProcess: .timedOut, linuxWire: .timedOut,
             outcome: "fault no-response", timeout: 1),
        Case(path: "/cut", response: .data(Data(count: 5_000)).truncated(after: 100), inProcess: .networkConnectionLost, linuxWire: .unknown,
             outcome: "truncated after 100 bytes"),
        Case(path: "/cut-slowly", response: .data(Data(count: 5_000)).throttled(to: .bytesPerSecond(20_000)).truncated(after: 1_000),
             inProcess: .networkConnectionLost, linuxWire: .unknown, outcome: "truncated after 1000 bytes"),
        Case(path: "/cut-at-zero", response: .text("never").truncated(after: 0), inProcess: .networkConnectionLost, linuxWire: .unknown,
             outcome: "truncated after 0 bytes"),
        Case(path: "/late-reset", response: .failure(.connectionReset).delayed(by: .milliseconds(100)), inProcess: .networkConnectionLost,
             linuxWire: .networkConnectionLost, outcome: "fault connection-reset"),
    ]

    func testEveryFaultFailsOnBothTransportsWithTheDocumentedCodes() async throws {
        let observations = try await TransportPair.observe({ stubs in
            for item in Self.cases { stubs.stub(.path(item.path), named: String(item.path.dropFirst()), response: item.response) }
        }) { client in
            for item in Self.cases { await client.fetch(item.path, timeout: item.timeout) }
        }
        if let differences = TransportPair.differences(observations, compareResults: false) {
            XCTFail("the journals differ:\n\(differences)")
        }
        for observed in observations {
            for (item, result) in zip(Self.cases, observed.results) {
                #if canImport(FoundationNetworking)
                let expected = observed.transport == .inProcess ? item.inProcess : item.linuxWire
                #else
                let expected = item.inProcess
                #endif
                XCTAssertEqual(result.errorCode, expected, "\(observed.transport) \(item.path): \(result)")
            }
            XCTAssertEqual(observed.journal.map(\.outcome), Self.cases.map(\.outcome), observed.transport.rawValue)
            XCTAssertEqual(observed.journal.map(\.stubName), Self.cases.map { String($0.path.dropFirst()) }, observed.transport.rawValue)
        }
        let journal = observations[0].journal
        XCTAssertEqual(journal.map(\.bodyBytesSent), [0, 0, 0, 0, 0, 100, 1_000, 0, 0])
        XCTAssertEqual(journal.map(\.status), [nil, nil, nil, nil, nil, 200, 200, 200, nil], "a truncated body had its head sent")
        let hang = try XCTUnwrap(observations.first?.durations[4])
        XCTAssertGreaterThanOrEqual(hang, 0.9, "no-response holds until the client's own 1 s timeout")
    }

    /// `.urlError(code)` is exact in-process; over the wire it can only be a reset.
    func testAURLErrorCodeIsExactInProcessAndAResetOverTheWire() async throws {
        let observations = try await TransportPair.observe({ stubs in
            stubs.stub(.path("/offline"), named: "offline", response: .failure(.urlError(.notConnectedToInternet)))
        }) { client in
            await client.fetch("/offline")
        }
        XCTAssertNil(TransportPair.differences(observations, compareResults: false))
        XCTAssertEqual(observations.map { $0.results.first?.errorCode }, [.notConnectedToInternet, .networkConnectionLost])
        XCTAssertEqual(observations[0].journal.map(\.outcome), ["fault url-error(\(URLError.Code.notConnectedToInternet.rawValue))"])
    }
}
