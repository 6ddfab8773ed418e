import Foundation
@testable import UnderstudyCLI
import UnderstudyServer
import XCTest

/// `understudy ca`: the certificate in each form, from the directory the flag or the
/// environment names, and the error for a key file others can read.
final class CACommandTests: XCTestCase {
    private var base: URL!

    override func setUpWithError() throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("understudy-ca-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: base)
    }

    func testEachFormFromTheBinaryMatchesTheCAOnDisk() throws {
        let directory = base.appendingPathComponent("ca").path
        let pem = try runUnderstudy(["ca", "--ca-dir", directory], in: base)
        XCTAssertEqual(pem.status, 0, pem.stderr)
        let ca = try CertificateAuthority(directory: URL(fileURLWithPath: directory))
        XCTAssertEqual(pem.stdout, ca.pem)
        XCTAssertEqual(try String(contentsOfFile: directory + "/ca.pem", encoding: .utf8), pem.stdout)
        XCTAssertTrue(pem.stdout.hasSuffix("-----END CERTIFICATE-----\n"))

        let path = try runUnderstudy(["ca", "--ca-dir", directory, "--path"], in: base)
        XCTAssertEqual(path.stdout, directory + "/ca.pem\n")
        let spki = try runUnderstudy(["ca", "--ca-dir", directory, "--spki"], in: base)
        XCTAssertEqual(spki.stdout, ca.spkiSHA256Base64 + "\n")

        // DER through openssl: the same certificate as the PEM.
        let derFile = base.appendingPathComponent("ca.der")
        let process = Process()
        process.executableURL = try understudyExecutable()
        process.arguments = ["ca", "--ca-dir", directory, "--der"]
        XCTAssertTrue(FileManager.default.createFile(atPath: derFile.path, contents: nil))
        process.standardOutput = try FileHandle(forWritingTo: derFile)
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(try Data(contentsOf: derFile), ca.der)
        let converted = try runUnderstudyTool("openssl", ["x509", "-inform", "DER", "-in", derFile.path])
        XCTAssertEqual(converted, ca.pem)

        let both = try runUnderstudy(["ca", "--ca-dir", directory, "--der", "--pem"], in: base)
        XCTAssertEqual(both.status, 64)
        XCTAssertTrue(both.stderr.contains("Error: Value to be set with flag '--pem' had already been set with flag '--der'"), both.stderr)
    }

    func testTheEnvironmentNamesTheDirectoryWhenTheFlagDoesNot() throws {
        let directory = base.appendingPathComponent("from-env")
        let parsed = try UnderstudyCommand.CA.parse([])
        XCTAssertEqual(parsed.authority.resolvedDirectory(environment: ["UNDERSTUDY_CA_DIR": directory.path]), directory)
        let flagged = try UnderstudyCommand.CA.parse(["--ca-dir", "/x/y", "--spki"])
        XCTAssertEqual(flagged.authority.resolvedDirectory(environment: ["UNDERSTUDY_CA_DIR": directory.path]).path, "/x/y")
        XCTAssertEqual(flagged.output, .spki)
    }

    func testAKeyOthersCanReadIsRefusedWithExitStatus1() throws {
        let directory = base.appendingPathComponent("ca")
        _ = try CertificateAuthority(directory: directory)
        let key = directory.appendingPathComponent("ca-key.pem").path
        XCTAssertEqual(chmod(key, 0o644), 0)
        let run = try runUnderstudy(["ca", "--ca-dir", directory.path], in: base)
        XCTAssertEqual(run.status, 1)
        XCTAssertEqual(run.stdout, "")
        XCTAssertEqual(run.stderr, "\(key): the CA key file has mode 0644, which lets group or others read it; expected 0600 (chmod 600 \(key))\n")
    }
}

/// What a tool printed on stdout (stdin closed).
private func runUnderstudyTool(_ tool: String, _ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [tool] + arguments
    process.standardInput = FileHandle.nullDevice
    let out = Pipe()
    process.standardOutput = out
    try process.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
}
