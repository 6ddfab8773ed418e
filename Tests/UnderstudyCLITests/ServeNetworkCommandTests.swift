import Foundation
import XCTest

/// `understudy serve --network`: every response on the profile, shown by the admin API; an
/// unknown name refused naming the flag and the known names.
final class ServeNetworkCommandTests: XCTestCase {
    func testServeNetworkDelaysEveryResponseByTheProfilesLatency() throws {
        let server = try startUnderstudy(["serve", "Stubs", "--port", "0", "--log", "quiet", "--network", "slow-4g"])
        defer { if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) } }
        let base = "http://127.0.0.1:\(server.port)"
        let state = String(decoding: try curlOutput([base + "/__admin/network"]), as: UTF8.self)
        XCTAssertTrue(state.contains(#""server":{"bytesPerSecond":180000,"latencyMs":562.5,"name":"slow-4g","rate":"1440kbit/s"}"#), state)
        let timing = String(decoding: try curlOutput(["-o", "/dev/null", "-w", "%{http_code} %{time_starttransfer}", base + "/gone.png"]), as: UTF8.self)
        let parts = timing.split(separator: " ")
        XCTAssertEqual(parts.first, "404")
        XCTAssertGreaterThanOrEqual(Double(parts.last ?? "") ?? 0, 0.5, "562.5 ms before the first byte: \(timing)")
    }

    func testAnUnknownProfileIsRefusedNamingTheFlagAndTheKnownNames() throws {
        let run = try runUnderstudy(["serve", "Stubs", "--port", "0", "--network", "5g"], in: packageRoot)
        XCTAssertNotEqual(run.status, 0)
        XCTAssertTrue(run.stderr.contains(
            "--network: unknown network profile '5g'; expected one of slow-3g, slow-4g, fast-4g, gprs, regular-2g, good-2g, regular-3g, good-3g, regular-4g, dsl, wifi"
        ), run.stderr)
    }
}
