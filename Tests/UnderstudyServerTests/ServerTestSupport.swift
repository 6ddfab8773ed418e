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

/// A raw TCP client on loopback, for what real clients will not send.
final class RawSocket {
    let fd: Int32

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else { throw POSIXError(.ECONNREFUSED) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    func send(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Reads until the peer closes, `until` is seen, or 5 s pass; returns what arrived.
    func read(until marker: String? = nil) -> String {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { break }
            data.append(buffer, count: count)
            if let marker, String(decoding: data, as: UTF8.self).components(separatedBy: marker).count > 1 { break }
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// Reads until `count` occurrences of `marker` have arrived (or the peer closes / 5 s).
    func read(occurrences count: Int, of marker: String) -> String {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while String(decoding: data, as: UTF8.self).components(separatedBy: marker).count - 1 < count {
            let received = recv(fd, &buffer, buffer.count, 0)
            if received <= 0 { break }
            data.append(buffer, count: received)
        }
        return String(decoding: data, as: UTF8.self)
    }

    deinit {
        close(fd)
    }
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
