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
    try runUnderstudy(executable: understudyExecutable(), arguments, in: directory)
}

/// Runs `executable` (an `understudy`, or a launcher given the binary as its first argument)
/// with `arguments`, as ``runUnderstudy(_:in:)`` does.
func runUnderstudy(executable: URL, _ arguments: [String], in directory: URL) throws -> UnderstudyRun {
    let process = Process()
    process.executableURL = executable
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

/// Sends `process` SIGTERM and waits at most `seconds` for it to exit; `false`, after killing it
/// with SIGKILL, when it did not (a lost signal must fail a test, not hang the suite).
func terminate(_ process: Process, within seconds: TimeInterval = 10) -> Bool {
    guard process.isRunning else { return true }
    kill(process.processIdentifier, SIGTERM)
    let deadline = Date().addingTimeInterval(seconds)
    while process.isRunning, Date() < deadline { usleep(10_000) }
    guard process.isRunning else {
        process.waitUntilExit()
        return true
    }
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
    return false
}

/// The package's root folder (the demo `Stubs/` live there).
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// A running `understudy serve`, `record` or `replay`, past its ready line.
struct StartedUnderstudy {
    let process: Process
    /// Its standard output after the ready line (the request log).
    let output: Pipe
    let readyLine: String
    let port: String
}

/// Starts `understudy` with `arguments` in the package root and waits for its ready line
/// (`Understudy listening on http://127.0.0.1:PORT (...)`).
func startUnderstudy(_ arguments: [String]) throws -> StartedUnderstudy {
    try startUnderstudy(executable: understudyExecutable(), arguments)
}

/// Starts `executable` (an `understudy`, or a launcher given the binary as its first argument)
/// with `arguments`, as ``startUnderstudy(_:)`` does.
func startUnderstudy(executable: URL, _ arguments: [String]) throws -> StartedUnderstudy {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    process.currentDirectoryURL = packageRoot
    let out = Pipe()
    process.standardOutput = out
    process.standardError = FileHandle.nullDevice
    try process.run()
    var line = Data()
    let deadline = Date().addingTimeInterval(30)
    while Date() < deadline, !line.contains(UInt8(ascii: "\n")) {
        let chunk = out.fileHandleForReading.availableData
        if chunk.isEmpty { break }
        line.append(chunk)
    }
    let ready = String(decoding: line, as: UTF8.self)
    let prefix = "Understudy listening on http://127.0.0.1:"
    guard ready.hasPrefix(prefix), let port = ready.dropFirst(prefix.count).split(separator: " ").first else {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        XCTFail("no ready line: \(ready)")
        throw CocoaError(.fileReadUnknown)
    }
    return StartedUnderstudy(process: process, output: out, readyLine: ready, port: String(port))
}

/// What curl printed (silent, at most 10 s).
func curlOutput(_ arguments: [String]) throws -> Data {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["curl", "--silent", "--max-time", "10"] + arguments
    let out = Pipe()
    process.standardOutput = out
    try process.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return data
}
