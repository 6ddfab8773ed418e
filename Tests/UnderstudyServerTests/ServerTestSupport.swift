import Foundation
import Understudy
import UnderstudyServer
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a command-line client did.
struct ProcessResult {
    let status: Int32
    let stdout: Data
    let stderr: String
    var text: String { String(decoding: stdout, as: UTF8.self) }
}

/// Runs a program to completion (bounded by its own flags, e.g. curl's --max-time).
func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws -> ProcessResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [executable] + arguments
    if let environment {
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
    }
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    let stderr = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return ProcessResult(status: process.terminationStatus, stdout: stdout, stderr: String(decoding: stderr, as: UTF8.self))
}

/// curl with a hard time limit so a test never hangs.
func curl(_ arguments: [String], maxTime: Int = 10, environment: [String: String]? = nil) throws -> ProcessResult {
    try run("curl", ["--silent", "--show-error", "--max-time", String(maxTime)] + arguments, environment: environment)
}

extension XCTestCase {
    /// A new empty directory under the system's temporary one, removed when the test ends.
    func makeTemporaryDirectory(_ prefix: String) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        return directory
    }

    /// Starts a server for `stubs`, runs `body`, and always stops it.
    func withServer(
        _ stubs: StubRegistry, configuration: StubServer.Configuration = .init(),
        _ body: (StubServer) async throws -> Void
    ) async throws {
        let server = try await StubServer.start(serving: stubs, configuration: configuration)
        do {
            try await body(server)
        } catch {
            try await server.stop()
            throw error
        }
        try await server.stop()
    }
}
