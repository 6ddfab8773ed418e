import Foundation
import XCTest

/// `understudy serve` started by a user without privileges, as on a developer's machine or a CI
/// runner that is not root. Every socket option the server sets must be one such a user may
/// set: Linux refuses `SO_DEBUG` to them, and a server that set it (for `TCP_NODELAY`, at the
/// wrong level) closed every connection as it accepted it, and failed every tunnel's upstream.
final class UnprivilegedServeTests: XCTestCase {
    func testAnUnprivilegedUserIsAnsweredDirectlyAndThroughATunnel() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("understudy-unprivileged-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        defer { try? FileManager.default.removeItem(at: directory) }
        let stubs = directory.appendingPathComponent("stubs")
        try FileManager.default.createDirectory(at: stubs, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        try Data("""
            stubs:
              - name: hello
                request: { path: /hello.txt }
                response: { body: "hello, whoever you are" }
            """.utf8).write(to: stubs.appendingPathComponent("hello.yaml"))
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: stubs.appendingPathComponent("hello.yaml").path)

        let arguments = ["serve", stubs.path, "--port", "0", "--log", "quiet", "--tunnel", "127.0.0.1"]
        let started: StartedUnderstudy
        if getuid() == 0 {
            // Root may set anything: run the server as nobody, from a copy that nobody can reach.
            let binary = directory.appendingPathComponent("understudy")
            try FileManager.default.copyItem(at: understudyExecutable(), to: binary)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: binary.path)
            #if os(Linux)
            let launcher = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
            #else
            let launcher = ["/usr/bin/sudo", "-n", "-u", "nobody"]
            #endif
            started = try startUnderstudy(
                executable: URL(fileURLWithPath: launcher[0]), Array(launcher.dropFirst()) + [binary.path] + arguments
            )
        } else {
            started = try startUnderstudy(arguments)
        }
        defer { _ = terminate(started.process) }

        let base = "http://127.0.0.1:\(started.port)"
        XCTAssertEqual(String(decoding: try curlOutput(["\(base)/hello.txt"]), as: UTF8.self), "hello, whoever you are")
        // A CONNECT tunnel to the server itself: the upstream connection is the server's own.
        let tunnelled = try curlOutput(["--proxytunnel", "--proxy", base, "-w", " %{http_connect}", "\(base)/hello.txt"])
        XCTAssertEqual(String(decoding: tunnelled, as: UTF8.self), "hello, whoever you are 200")
    }
}
