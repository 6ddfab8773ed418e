import Foundation
import XCTest

/// Runs `executable` with `arguments` to its end: its exit status and what it printed on
/// standard output. Where Foundation has no `Process` (iOS, tvOS and watchOS, where the
/// in-process suites also run) the test skips, saying so.
public func runTool(_ executable: URL, _ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> (status: Int32, output: Data) {
    #if os(macOS) || os(Linux)
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, output)
    #else
    throw XCTSkip("\(executable.lastPathComponent) cannot be run here: this platform has no Process (the test runs on macOS and Linux)", file: file, line: line)
    #endif
}
