import Foundation
import XCTest

/// The independent tools the tests compare against: Pillow (in the package's `.venv`, or
/// `UNDERSTUDY_PYTHON`), and cwebp, dwebp, img2webp and pngcheck (`apt-get install webp pngcheck`).
/// `make test` installs them; a missing tool is a failure, not a skip.
enum Tools {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static var python: String {
        if let path = ProcessInfo.processInfo.environment["UNDERSTUDY_PYTHON"], !path.isEmpty { return path }
        return packageRoot.appendingPathComponent(".venv/bin/python").path
    }

    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs a program to completion. `program` is a path or a name looked up in PATH.
    static func run(_ program: String, _ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> Output {
        let process = Process()
        if program.contains("/") {
            process.executableURL = URL(fileURLWithPath: program)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [program] + arguments
        }
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        do {
            try process.run()
        } catch {
            XCTFail("cannot run \(program) (install it: see Tests/UnderstudyImagesTests/Tools.swift): \(error)", file: file, line: line)
            throw error
        }
        // Read before waiting, so a full pipe cannot block the child.
        let out = stdout.fileHandleForReading.readDataToEndOfFile()
        let err = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Output(status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self))
    }

    /// Runs a program and fails the test unless it exits 0.
    @discardableResult
    static func check(_ program: String, _ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> Output {
        let output = try run(program, arguments, file: file, line: line)
        guard output.status == 0 else {
            XCTFail("\(program) \(arguments.joined(separator: " ")) exited \(output.status): \(output.stderr)\(output.stdout)", file: file, line: line)
            throw ToolFailure()
        }
        return output
    }

    /// Runs a Python script with Pillow; `arguments` become `sys.argv[1...]`.
    @discardableResult
    static func pillow(_ script: String, _ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> Output {
        guard FileManager.default.isExecutableFile(atPath: python) else {
            XCTFail("no Python with Pillow at \(python): run `python3 -m venv .venv && .venv/bin/pip install Pillow` in the package root, or set UNDERSTUDY_PYTHON", file: file, line: line)
            throw ToolFailure()
        }
        return try check(python, ["-c", script] + arguments, file: file, line: line)
    }

    struct ToolFailure: Error {}
}

/// A temporary directory removed when the test ends.
final class Scratch {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("understudy-images-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    func write(_ data: Data, _ name: String) throws -> String {
        let path = path(name)
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }

    func read(_ name: String) throws -> Data {
        try Data(contentsOf: url.appendingPathComponent(name))
    }
}
