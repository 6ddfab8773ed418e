import Foundation
import XCTest

/// `understudy serve --fault --fault-chance`: connections closed before their first request, as
/// curl meets them; bad values refused naming the flag and what was expected.
final class ServeFaultCommandTests: XCTestCase {
    func testServeFaultClosesEveryConnectionUnread() throws {
        let server = try startUnderstudy(["serve", "Stubs", "--port", "0", "--log", "quiet", "--fault", "disconnect-at-start"])
        defer { if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) } }
        let curl = Process()
        curl.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        curl.arguments = ["curl", "--silent", "--max-time", "5", "-o", "/dev/null", "http://127.0.0.1:\(server.port)/gone.png"]
        try curl.run()
        curl.waitUntilExit()
        XCTAssertTrue([52, 56].contains(curl.terminationStatus), "empty reply or a reset, not \(curl.terminationStatus)")
    }

    func testBadFaultsAndChancesAreRefusedNamingTheFlag() throws {
        for (arguments, message) in [
            (["--fault", "explode"], "--fault: unknown connection fault 'explode'; expected one of disconnect-at-start, stall-at-start"),
            (["--fault", "stall-at-start", "--fault-chance", "1.5"], "--fault-chance: 1.5 is not a share; expected a number from 0 to 1"),
            (["--fault-chance", "0.5"], "--fault-chance needs --fault (disconnect-at-start, stall-at-start)"),
        ] {
            let run = try runUnderstudy(["serve", "Stubs", "--port", "0"] + arguments, in: packageRoot)
            XCTAssertNotEqual(run.status, 0, "\(arguments)")
            XCTAssertTrue(run.stderr.contains(message), "\(arguments): \(run.stderr)")
        }
    }
}
