import Foundation
import XCTest

/// The `understudy` executable that `swift test` built beside the test bundle, with any
/// scratch path.
func understudyExecutable() throws -> URL {
    var directories = [
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
        Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent(),
    ]
    // On Apple platforms the tests run inside xctest; the bundle sits in the products directory.
    directories += Bundle.allBundles.map(\.bundleURL).filter { $0.pathExtension == "xctest" }
        .map { $0.deletingLastPathComponent() }
    for directory in directories {
        let candidate = directory.appendingPathComponent("understudy")
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    }
    XCTFail("no understudy executable in \(directories.map(\.path))")
    throw CocoaError(.fileNoSuchFile)
}

/// What a run of the `understudy` binary printed, and its exit status.
struct UnderstudyRun {
    let status: Int32
    let stdout: String
    let stderr: String
}

/// Runs the `understudy` binary to completion in `directory` (outputs are small: read to the
/// end, then reap).
func runUnderstudy(_ arguments: [String], in directory: URL) throws -> UnderstudyRun {
    let process = Process()
    process.executableURL = try understudyExecutable()
    process.arguments = arguments
    process.currentDirectoryURL = directory
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    let stderr = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return UnderstudyRun(
        status: process.terminationStatus,
        stdout: String(decoding: stdout, as: UTF8.self),
        stderr: String(decoding: stderr, as: UTF8.self)
    )
}
