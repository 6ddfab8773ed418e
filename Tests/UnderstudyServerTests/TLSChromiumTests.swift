import Foundation
import Understudy
@testable import UnderstudyServer
import XCTest

/// Headless Chromium trusting the local CA in its two ways (`--ignore-certificate-errors-spki-list`
/// with `understudy ca --spki`, and the CA in its NSS database), on a good host and each `tls:` case.
final class TLSChromiumTests: XCTestCase {
    /// What Chromium showed for `url`: the DOM after load, and its log.
    private func load(_ url: String, spki: String?, home: URL? = nil, directory: URL) throws -> (dom: String, log: String) {
        let profile = directory.appendingPathComponent("profile-\(UUID().uuidString)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        if let home {
            process.environment = ProcessInfo.processInfo.environment.merging(["HOME": home.path]) { _, new in new }
        }
        process.arguments = [
            "timeout", "-s", "KILL", "90", "chromium",
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
            "--disable-crash-reporter", "--no-proxy-server", "--user-data-dir=\(profile.path)",
            "--host-resolver-rules=MAP *.example.com 127.0.0.1",
            "--enable-logging=stderr", "--v=0", "--virtual-time-budget=5000", "--dump-dom", url,
        ] + (spki.map { ["--ignore-certificate-errors-spki-list=\($0)"] } ?? [])
        let log = directory.appendingPathComponent("chromium-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let out = Pipe()
        process.standardOutput = out
        process.standardError = try FileHandle(forWritingTo: log)
        try process.run()
        let dom = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (String(decoding: dom, as: UTF8.self), (try? String(contentsOf: log, encoding: .utf8)) ?? "")
    }

    /// Serves every `tls:` case on `<case>.example.com` (and good leaves elsewhere) from `ca`.
    private func startServer(_ ca: CertificateAuthority) throws -> TLSTestServer {
        let stubs = StubRegistry()
        for behaviour in TLSBehaviour.allCases {
            stubs.tls(host: "\(behaviour.rawValue).example.com", behaviour)
        }
        return try TLSTestServer(provider: try TLSContextProvider(identity: .localCA(ca), registry: stubs))
    }

    /// The `net::ERR_...` Chromium's headless shell logged for a failed page load, or `loaded`.
    private func outcome(_ result: (dom: String, log: String), port: Int, host: String) -> String {
        if result.dom.contains("tls ok: \(host):\(port) /page") { return "loaded" }
        guard let line = result.log.split(separator: "\n").first(where: { $0.contains("Page load failed: ") }),
              let range = line.range(of: "Page load failed: ")
        else { return "no page and no error logged: \(result.dom.prefix(200)) \(result.log.suffix(1_000))" }
        return String(line[range.upperBound...])
    }

    /// The flag skips *every* certificate error of a chain that holds the CA's key, so with it
    /// Chromium loads the expired, not-yet-valid and wrong-host cases: a test of how a browser
    /// treats them must trust the CA another way (the NSS test below).
    func testWithTheCAsSPKIHashChromiumLoadsGoodHostsAndOverlooksCertificateErrorsOfTheCAsLeaves() throws {
        let directory = try makeTemporaryDirectory("tls-chromium")
        let ca = try CertificateAuthority(directory: directory.appendingPathComponent("ca"))
        let server = try startServer(ca)
        defer { server.stop() }
        let expected: [(host: String, outcome: String)] = [
            ("img.example.com", "loaded"),
            ("expired.example.com", "loaded"),
            ("not-yet-valid.example.com", "loaded"),
            ("wrong-host.example.com", "loaded"),
            ("self-signed.example.com", "net::ERR_CERT_AUTHORITY_INVALID"),
            ("handshake-failure.example.com", "net::ERR_SSL_VERSION_OR_CIPHER_MISMATCH"),
        ]
        for (host, outcome) in expected {
            let result = try load("https://\(host):\(server.port)/page", spki: ca.spkiSHA256Base64, directory: directory)
            XCTAssertEqual(self.outcome(result, port: server.port, host: host), outcome, host)
        }
    }

    /// Trusting the CA in the NSS database of the user Chromium runs as (`~/.pki/nssdb`, here
    /// in a throwaway HOME), each case fails with its own error.
    func testTrustingTheCAInItsNSSDatabaseChromiumRefusesEachTLSCaseWithItsOwnError() throws {
        let directory = try makeTemporaryDirectory("tls-chromium-nss")
        let ca = try CertificateAuthority(directory: directory.appendingPathComponent("ca"))
        let home = directory.appendingPathComponent("home")
        let database = home.appendingPathComponent(".pki/nssdb")
        try FileManager.default.createDirectory(at: database, withIntermediateDirectories: true)
        XCTAssertEqual(try runClient("certutil", ["-d", "sql:\(database.path)", "-N", "--empty-password"]).status, 0)
        let added = try runClient("certutil", ["-d", "sql:\(database.path)", "-A", "-t", "C,,", "-n", "Understudy", "-i", ca.certificatePath!])
        XCTAssertEqual(added.status, 0, added.stderr)
        let server = try startServer(ca)
        defer { server.stop() }
        let expected: [(host: String, outcome: String)] = [
            ("img.example.com", "loaded"),
            ("expired.example.com", "net::ERR_CERT_DATE_INVALID"),
            ("not-yet-valid.example.com", "net::ERR_CERT_DATE_INVALID"),
            ("wrong-host.example.com", "net::ERR_CERT_COMMON_NAME_INVALID"),
            ("self-signed.example.com", "net::ERR_CERT_AUTHORITY_INVALID"),
            ("handshake-failure.example.com", "net::ERR_SSL_VERSION_OR_CIPHER_MISMATCH"),
        ]
        for (host, outcome) in expected {
            let result = try load("https://\(host):\(server.port)/page", spki: nil, home: home, directory: directory)
            XCTAssertEqual(self.outcome(result, port: server.port, host: host), outcome, host)
        }
    }
}
