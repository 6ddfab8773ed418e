import Foundation
import XCTest

/// `understudy serve` started by a user without privileges, as on a developer's machine or a CI
/// runner that is not root. Every socket option the server sets must be one such a user may
/// set: Linux refuses `SO_DEBUG` to them, and a server that set it (for `TCP_NODELAY`, at the
/// wrong level) closed every connection as it accepted it, and failed every tunnel's upstream.
final class UnprivilegedServeTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("understudy-unprivileged-\(UUID().uuidString)")
        let stubs = directory.appendingPathComponent("stubs")
        try FileManager.default.createDirectory(at: stubs, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
        let file = stubs.appendingPathComponent("hello.yaml")
        try Data("""
            stubs:
              - name: hello
                request: { path: /hello.txt }
                response: { body: "hello, whoever you are" }
            """.utf8).write(to: file)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    /// How to run `understudy` as a user without privileges: as is when the suite is one, else
    /// as nobody, from a copy of the binary that nobody can reach.
    private func unprivileged() throws -> (executable: URL, leading: [String]) {
        guard getuid() == 0 else { return (try understudyExecutable(), []) }
        let binary = directory.appendingPathComponent("understudy")
        if !FileManager.default.fileExists(atPath: binary.path) {
            try FileManager.default.copyItem(at: understudyExecutable(), to: binary)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: binary.path)
        }
        #if os(Linux)
        let launcher = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        #else
        let launcher = ["/usr/bin/sudo", "-n", "-u", "nobody"]
        #endif
        return (URL(fileURLWithPath: launcher[0]), Array(launcher.dropFirst()) + [binary.path])
    }

    func testAnUnprivilegedUserIsAnsweredDirectlyAndThroughATunnel() throws {
        let (executable, leading) = try unprivileged()
        let stubs = directory.appendingPathComponent("stubs").path
        let started = try startUnderstudy(
            executable: executable, leading + ["serve", stubs, "--port", "0", "--log", "quiet", "--tunnel", "127.0.0.1"]
        )
        defer { _ = terminate(started.process) }

        let base = "http://127.0.0.1:\(started.port)"
        XCTAssertEqual(String(decoding: try curlOutput(["\(base)/hello.txt"]), as: UTF8.self), "hello, whoever you are")
        // A CONNECT tunnel to the server itself: the upstream connection is the server's own.
        let tunnelled = try curlOutput(["--proxytunnel", "--proxy", base, "-w", " %{http_connect}", "\(base)/hello.txt"])
        XCTAssertEqual(String(decoding: tunnelled, as: UTF8.self), "hello, whoever you are 200")
    }

    /// A port such a user may not bind is refused in words that say what to do.
    func testAPrivilegedPortIsRefusedSayingWhatToDo() throws {
        var firstUnprivileged = 1024
        #if os(Linux)
        // Containers often lower it (to 0: every port is open to everyone).
        if let text = try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_unprivileged_port_start", encoding: .utf8),
           let value = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) {
            firstUnprivileged = value
        }
        #endif
        guard firstUnprivileged > 1 else { throw XCTSkip("every port may be bound by anyone on this machine") }
        let port = firstUnprivileged - 1
        let (executable, leading) = try unprivileged()
        let run = try runUnderstudy(
            executable: executable, leading + ["serve", directory.appendingPathComponent("stubs").path, "--port", "\(port)"], in: directory
        )
        XCTAssertEqual(run.status, 1)
        XCTAssertEqual(
            run.stderr,
            "cannot listen on 127.0.0.1:\(port): \(String(cString: strerror(EACCES))): this port needs privileges (root, or "
                + "CAP_NET_BIND_SERVICE below 1024); use another, or 0 for any free port\n"
        )
    }
}
