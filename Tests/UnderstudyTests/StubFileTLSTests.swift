import Foundation
import Understudy
import XCTest

/// The `tls:` section of stub files and `stubs.tls(host:_:)`: which host gets which bad
/// certificate, and the exact issues for what is wrong.
final class StubFileTLSTests: XCTestCase {
    private func assertIssues(
        _ name: String, _ text: String, _ expected: [String], file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let sandbox = try StubFileSandbox()
        try sandbox.write(name, text)
        XCTAssertEqual(sandbox.issues(), expected, file: file, line: line)
    }

    func testATLSSectionBesideStubsRulesHostsAndGlobs() throws {
        let sandbox = try StubFileSandbox()
        try sandbox.write("a.yaml", """
            stubs:
              - request: { path: /cat.png }
            tls:
              - host: expired.example.com
                certificate: expired
              - host: "*.untrusted.test"
                certificate: self-signed
            """)
        try sandbox.write("b.json", #"{"tls": [{"host": "127.0.0.1", "certificate": "handshake-failure"}]}"#)
        let stubs = StubRegistry()
        try stubs.load(from: sandbox.stubs)
        XCTAssertEqual(stubs.stubs.count, 1)
        XCTAssertEqual(stubs.tlsRules.map(\.description), [
            "expired.example.com: expired", "*.untrusted.test: self-signed", "127.0.0.1: handshake-failure",
        ])
        XCTAssertEqual(stubs.tlsBehaviour(forHost: "Expired.Example.com"), .expired)
        XCTAssertEqual(stubs.tlsBehaviour(forHost: "img.cdn.untrusted.test"), .selfSigned)
        XCTAssertNil(stubs.tlsBehaviour(forHost: "untrusted.test"), "a glob needs a subdomain, as in matching")
        XCTAssertEqual(stubs.tlsBehaviour(forHost: "127.0.0.1"), .handshakeFailure)
        XCTAssertNil(stubs.tlsBehaviour(forHost: "fine.example.com"))
    }

    func testRulesInCodeReplaceByHostAndResetGoesBackToTheFiles() throws {
        let sandbox = try StubFileSandbox()
        try sandbox.write("a.yaml", "tls:\n  - host: a.test\n    certificate: wrong-host\n")
        let stubs = StubRegistry()
        try stubs.load(from: sandbox.stubs)
        stubs.tls(host: "a.test", .notYetValid)
        stubs.tls(host: "*.test", .expired)
        XCTAssertEqual(stubs.tlsRules.map(\.description), ["a.test: not-yet-valid", "*.test: expired"])
        XCTAssertEqual(stubs.tlsBehaviour(forHost: "a.test"), .expired, "the rule added last wins")
        XCTAssertTrue(stubs.removeTLS(host: "*.test"))
        XCTAssertFalse(stubs.removeTLS(host: "*.test"))
        XCTAssertEqual(stubs.tlsBehaviour(forHost: "a.test"), .notYetValid)
        try stubs.reset()
        XCTAssertEqual(stubs.tlsRules.map(\.description), ["a.test: wrong-host"])
    }

    func testUnknownCertificateListsTheKnownOnes() throws {
        try assertIssues("a.yaml", "tls:\n  - host: x.test\n    certificate: x\n", [
            "Stubs/a.yaml:3: tls[0].certificate: unknown certificate 'x'; expected one of expired, not-yet-valid, wrong-host, self-signed, handshake-failure",
        ])
    }

    func testMissingKeysUnknownKeysAndNonHosts() throws {
        try assertIssues("a.yaml", """
            stubs:
              - request: { path: /a }
            tls:
              - host: a.test
              - certificate: expired
                port: 443
              - host: "https://b.test/"
                certificate: expired
              - host: b.test:443
                certificate: expired
            """, [
            "Stubs/a.yaml:4: tls[0]: missing key 'certificate'; expected a {host, certificate} mapping",
            "Stubs/a.yaml:5: tls[1]: missing key 'host'; expected a {host, certificate} mapping",
            "Stubs/a.yaml:6: tls[1].port: unknown key 'port'; expected one of host, certificate",
            "Stubs/a.yaml:7: tls[2].host: 'https://b.test/' is not a host; expected a host such as img.example.com, 127.0.0.1 or *.example.com",
            "Stubs/a.yaml:9: tls[3].host: 'b.test:443' is not a host; expected a host such as img.example.com, 127.0.0.1 or *.example.com",
        ])
    }

    func testTLSMustBeANonEmptyListOfMappings() throws {
        try assertIssues("a.yaml", "tls: expired\n", [
            "Stubs/a.yaml:1: tls: expected a list of {host, certificate} mappings, found string 'expired'",
        ])
        try assertIssues("a.json", #"{"tls": []}"#, [
            "Stubs/a.json:1: tls: the list is empty; expected at least one {host, certificate} mapping",
        ])
        try assertIssues("a.yaml", "tls:\n  - expired.test\n", [
            "Stubs/a.yaml:2: tls[0]: expected a {host, certificate} mapping, found string 'expired.test'",
        ])
    }

    func testAnAdminBodyMayNotCarryTLS() throws {
        XCTAssertThrowsError(try StubFileLoader.stubs(parsing: #"{"tls": [], "stubs": [{}]}"#, format: .json)) { error in
            XCTAssertEqual((error as? StubFileError)?.issues.map(\.description), [
                "request body:1: tls: unknown key 'tls'; expected one of stubs",
            ])
        }
    }
}
