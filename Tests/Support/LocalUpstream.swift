import Foundation
import XCTest

#if os(macOS) || os(Linux)
/// A real HTTP server on 127.0.0.1, port 0, serving a directory: Python's http.server (HTTP/1.0,
/// with its own Date and Server headers), started and ended by PID within one test. Shared by
/// the server's and the URL protocol's forward tests.
public final class LocalUpstream {
    /// The Python process.
    public let process = Process()
    /// The directory it serves.
    public let directory: URL
    /// `http://127.0.0.1:PORT`.
    public private(set) var baseURL: URL!

    /// Writes `files` (name to bytes) into a new directory and starts serving it.
    public init(files: [String: Data]) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("upstream-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for (name, data) in files {
            try data.write(to: directory.appendingPathComponent(name))
        }
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", directory.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // "Serving HTTP on 127.0.0.1 port 43219 (http://127.0.0.1:43219/) ..."
        var text = ""
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, !text.contains("\n") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        guard let range = text.range(of: #"port (\d+)"#, options: .regularExpression),
              let port = Int(text[range].dropFirst(5))
        else {
            stop()
            throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "python3 http.server did not start: \(text)"])
        }
        baseURL = URL(string: "http://127.0.0.1:\(port)")!
    }

    /// Ends the server (by its PID) and removes the directory.
    public func stop() {
        if process.isRunning {
            // SIGKILL: a child spawned from a Dispatch thread may inherit a mask that blocks SIGTERM.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }
}
#else
/// Where Foundation has no `Process` (iOS, tvOS, watchOS) no Python server can be started:
/// a test that needs one skips, saying so.
public final class LocalUpstream {
    /// The directory it would serve.
    public let directory: URL
    /// `http://127.0.0.1:PORT`.
    public private(set) var baseURL: URL!

    /// Skips the test.
    public init(files: [String: Data]) throws {
        directory = FileManager.default.temporaryDirectory
        throw XCTSkip("a local upstream needs python3's http.server, and this platform has no Process (the test runs on macOS and Linux)")
    }

    /// Nothing to end.
    public func stop() {}
}
#endif
