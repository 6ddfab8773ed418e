import Foundation
import UnderstudyTestSupport
import XCTest

/// The fixture's WireMock directory served by WireMock 2.35.1 itself and by
/// `understudy serve --wiremock`: the same requests, sent by curl, must get the same status,
/// body bytes and headers (Content-Type and the headers the mappings give), and each fault the
/// same curl exit code.
final class WireMockDifferentialTests: XCTestCase {
    static let fixture = packageRoot.appendingPathComponent("Tests/UnderstudyTests/Fixtures/wiremock")

    /// Both servers, started by the first test that needs them and stopped with the class
    /// (WireMock's JVM takes seconds to start).
    private static let servers = LockedServers(root: fixture)

    override class func tearDown() {
        servers.stop()
        super.tearDown()
    }

    // MARK: - The requests

    func testURLMatching() throws {
        try compare([
            Probe("GET", "/hello"),
            Probe("GET", "/search?q=cats&page=2"),
            Probe("GET", "/search?page=2&q=cats", unmatched: true),
            Probe("GET", "/a%20b?x=%41"),
            Probe("GET", "/a%20b?x=A", unmatched: true),
            Probe("GET", "/users/123"),
            Probe("GET", "/users/123?expand=true"),
            Probe("GET", "/users/abc", unmatched: true),
            Probe("GET", "/files/dot.png"),
            Probe("GET", "/files/dot.png?v=3"),
            Probe("GET", "/files/dot.png?w=3", unmatched: true),
            Probe("POST", "/any"),
            Probe("DELETE", "/any"),
            Probe("PATCH", "/no-method"),
            Probe("HEAD", "/hello", unmatched: true),
            Probe("HEAD", "/head-only"),
            Probe("GET", "/head-only", unmatched: true),
            Probe("GET", "/single"),
            Probe("GET", "/no-response"),
            Probe("GET", "/nothing-here", unmatched: true),
        ])
    }

    func testQueryParametersAndHeaders() throws {
        let query = "/items?id=42&name=x+y&tag=cats&code=ABC&mode=fast"
        let headers = ["X-Token: abc", "Accept: application/json", "X-Trace: deadbeef", "X-Mode: LOUD"]
        try compare([
            Probe("GET", query),
            Probe("GET", "/items?id=42&name=x%20y&tag=bat&code=XYZ&mode=FAST"),
            Probe("GET", query + "&debug=1", unmatched: true),
            Probe("GET", "/items?id=42&name=x+y&tag=cats&code=ABCD&mode=fast", unmatched: true),
            Probe("GET", "/items?id=42&name=x+y&tag=dog&code=ABC&mode=fast", unmatched: true),
            Probe("GET", "/headers", headers: headers),
            Probe("GET", "/headers", headers: ["x-token: abc", "accept: text/json", "x-trace: 0123abcd", "x-mode: loud"]),
            Probe("GET", "/headers", headers: headers + ["X-Debug: 1"], unmatched: true),
            Probe("GET", "/headers", headers: ["X-Token: ABC"] + headers.dropFirst(), unmatched: true),
            Probe("GET", "/headers", headers: headers.dropLast() + ["X-Trace: deadbeef00"], unmatched: true),
        ])
    }

    func testBodiesAndResponses() throws {
        try compare([
            Probe("POST", "/json", body: #"{"tags": ["a", "b"], "price": 1.50, "id": 7}"#),
            Probe("POST", "/json", body: #"{"id": 7, "tags": ["b", "a"], "price": 1.5}"#, unmatched: true),
            Probe("POST", "/json", body: #"{"id": 7, "tags": ["a", "b"], "price": 1.5, "extra": 1}"#, unmatched: true),
            Probe("POST", "/json-text", body: #"{ "ok" : true }"#),
            Probe("POST", "/text", body: "exact body"),
            Probe("POST", "/text", body: "exact body!", unmatched: true),
            Probe("PUT", "/contains", body: "a needle in a haystack"),
            Probe("PUT", "/contains", body: "a needle", unmatched: true),
            Probe("GET", "/base64"),
            Probe("GET", "/readme"),
            Probe("GET", "/gone"),
            Probe("DELETE", "/items/1"),
        ])
    }

    func testDelaysAndDribbleDeliverTheSameBodies() throws {
        try compare([
            Probe("GET", "/slow/fixed"),
            Probe("GET", "/slow/uniform"),
            Probe("GET", "/slow/lognormal"),
            Probe("GET", "/slow/both"),
            Probe("GET", "/slow/dribble"),
        ])
    }

    func testFaultsLookTheSameToCurl() throws {
        try compare([
            Probe("GET", "/fault/empty"),
            Probe("GET", "/fault/reset"),
            Probe("GET", "/fault/malformed"),
            Probe("GET", "/fault/random"),
            Probe("GET", "/fault/late"),
        ])
    }

    func testPriorityOrderAndTies() throws {
        try compare([
            Probe("GET", "/priority"),
            Probe("GET", "/default"),
            Probe("GET", "/tie"),
            Probe("GET", "/catch/this"),
            Probe("GET", "/catch/that"),
        ])
    }

    // MARK: - Comparing

    /// One request, and whether no mapping answers it (then only the status is compared: the
    /// two servers explain a 404 in their own words).
    struct Probe: CustomStringConvertible {
        let method: String
        let target: String
        var headers: [String] = []
        var body: String?
        var unmatched = false

        init(_ method: String, _ target: String, headers: [String] = [], body: String? = nil, unmatched: Bool = false) {
            self.method = method
            self.target = target
            self.headers = headers
            self.body = body
            self.unmatched = unmatched
        }

        var description: String { "\(method) \(target)" }
    }

    /// The headers compared: Content-Type (WireMock sends none unless a mapping gives one) and
    /// every header the fixture's mappings give.
    static let comparedHeaders = ["Content-Type", "Cache-Control", "Set-Cookie", "X-Reason", "X-Items", "X-Head"]

    private func compare(_ probes: [Probe], file: StaticString = #filePath, line: UInt = #line) throws {
        try Self.compare(probes, ports: Self.servers.ports(), file: file, line: line)
    }

    /// Sends each probe to both servers and fails on every difference.
    static func compare(_ probes: [Probe], ports: (wireMock: Int, understudy: Int), file: StaticString = #filePath, line: UInt = #line) throws {
        for probe in probes {
            let expected = try Self.fetch(probe, port: ports.wireMock)
            let actual = try Self.fetch(probe, port: ports.understudy)
            if let difference = Self.difference(probe, wireMock: expected, understudy: actual) {
                XCTFail(difference, file: file, line: line)
            }
            // WireMock names the mapping that answered; a fault leaves no headers to look at.
            if probe.unmatched {
                XCTAssertEqual(expected.status, 404, "\(probe): WireMock should find no mapping", file: file, line: line)
                XCTAssertEqual(expected.values(of: "Matched-Stub-Id"), [], "\(probe): WireMock should find no mapping", file: file, line: line)
            } else if expected.curlExit == 0 {
                XCTAssertEqual(expected.values(of: "Matched-Stub-Id").count, 1, "\(probe): WireMock should answer from a mapping", file: file, line: line)
            }
        }
    }

    /// What one client saw.
    struct Observed {
        var curlExit: Int32
        var status: Int?
        var headers: [(name: String, value: String)]
        var body: Data

        func values(of name: String) -> [String] {
            headers.filter { $0.name.caseInsensitiveCompare(name) == .orderedSame }.map(\.value)
        }
    }

    /// Where the two answers differ, or `nil`.
    static func difference(_ probe: Probe, wireMock: Observed, understudy: Observed) -> String? {
        var differences: [String] = []
        if wireMock.curlExit != understudy.curlExit {
            differences.append("curl exit \(wireMock.curlExit) vs \(understudy.curlExit)")
        }
        if wireMock.status != understudy.status {
            differences.append("status \(wireMock.status.map(String.init) ?? "none") vs \(understudy.status.map(String.init) ?? "none")")
        }
        // Headers and bodies are what a client reads only when the exchange succeeded.
        if !probe.unmatched, wireMock.curlExit == 0 {
            if wireMock.body != understudy.body {
                differences.append("body \(show(wireMock.body)) vs \(show(understudy.body))")
            }
            for name in comparedHeaders where wireMock.values(of: name) != understudy.values(of: name) {
                differences.append("\(name) \(wireMock.values(of: name)) vs \(understudy.values(of: name))")
            }
        }
        guard !differences.isEmpty else { return nil }
        return "\(probe): WireMock vs Understudy: " + differences.joined(separator: "; ")
    }

    private static func show(_ data: Data) -> String {
        String(data: data, encoding: .utf8).map { "\"\($0)\"" } ?? "\(data.count) bytes \(data.prefix(16).map { String(format: "%02x", $0) }.joined())"
    }

    /// Sends `probe` with curl, body and headers to files (curl's own exit code kept).
    static func fetch(_ probe: Probe, port: Int) throws -> Observed {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("wiremock-diff-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let bodyFile = scratch.appendingPathComponent("body"), headerFile = scratch.appendingPathComponent("headers")
        var arguments = ["--silent", "--max-time", "10", "--output", bodyFile.path, "--dump-header", headerFile.path]
        arguments += probe.method == "HEAD" ? ["--head"] : ["--request", probe.method]
        for header in probe.headers { arguments += ["--header", header] }
        if let body = probe.body { arguments += ["--data-binary", body] }
        arguments.append("http://127.0.0.1:\(port)\(probe.target)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["curl"] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        let head = (try? String(contentsOf: headerFile, encoding: .isoLatin1)) ?? ""
        var status: Int?
        var headers: [(name: String, value: String)] = []
        for line in head.components(separatedBy: "\r\n") {
            if line.hasPrefix("HTTP/") {
                status = line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
                headers = []
            } else if let colon = line.firstIndex(of: ":") {
                headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
            }
        }
        // For HEAD, curl writes the head where the body would go.
        let body = probe.method == "HEAD" ? Data() : (try? Data(contentsOf: bodyFile)) ?? Data()
        return Observed(curlExit: process.terminationStatus, status: status, headers: headers, body: body)
    }
}

/// WireMock and Understudy serving the fixture, started once and stopped by their PIDs.
final class LockedServers: @unchecked Sendable {  // every field is touched under `lock`
    private let lock = NSLock()
    /// The WireMock root both serve.
    private let root: URL
    /// Flags both servers take (WireMock's, which `understudy serve` accepts too).
    private let flags: [String]

    init(root: URL, flags: [String] = []) {
        self.root = root
        self.flags = flags
    }
    private var wireMock: Process?
    private var understudy: Process?
    private var started: Result<(wireMock: Int, understudy: Int), any Error>?

    /// The two ports, once both servers answer; the servers start on the first call.
    func ports() throws -> (wireMock: Int, understudy: Int) {
        try lock.withLock {
            if started == nil { started = start() }
            return try started!.get()
        }
    }

    private func start() -> Result<(wireMock: Int, understudy: Int), any Error> {
        do {
            let jar = try wireMockJar()
            let port = try freeLoopbackPort()
            let java = Process()
            java.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            java.arguments = [
                "java", "-jar", jar.path, "--port", String(port), "--bind-address", "127.0.0.1",
                "--root-dir", root.path, "--disable-banner", "--disable-request-logging",
            ] + flags
            java.standardOutput = FileHandle.nullDevice
            java.standardError = FileHandle.nullDevice
            try java.run()
            wireMock = java
            let served = try startUnderstudy(["serve", "--wiremock", root.path, "--port", "0", "--log", "quiet"] + flags)
            understudy = served.process
            try waitForWireMock(port: port, process: java)
            return .success((port, Int(served.port) ?? 0))
        } catch {
            return .failure(error)
        }
    }

    func stop() {
        lock.withLock {
            for process in [wireMock, understudy].compactMap({ $0 }) where process.isRunning {
                XCTAssertTrue(terminate(process, within: 30), "still running 30 s after SIGTERM")
            }
            wireMock = nil
            understudy = nil
        }
    }

    /// Stops both servers and removes `root`, the folder they served.
    func stop(removing root: URL) {
        stop()
        try? FileManager.default.removeItem(at: root)
    }

    /// A new, empty WireMock root (`mappings/` and `__files/`) under the temporary directory,
    /// named after `label`.
    static func temporaryRoot(_ label: String) -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("\(label)-\(UUID().uuidString)")
        for folder in ["mappings", "__files"] {
            try? FileManager.default.createDirectory(at: root.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        return root
    }
}

/// WireMock's standalone jar from the PyPI package `wiremock` in `.venv` (`make test-deps`).
private func wireMockJar() throws -> URL {
    let lib = packageRoot.appendingPathComponent(".venv/lib")
    let pythons = (try? FileManager.default.contentsOfDirectory(atPath: lib.path)) ?? []
    for python in pythons.sorted() {
        let jar = lib.appendingPathComponent("\(python)/site-packages/wiremock/server/wiremock-standalone-2.35.1.jar")
        if FileManager.default.fileExists(atPath: jar.path) { return jar }
    }
    throw SetUpFailure("no wiremock-standalone-2.35.1.jar under \(lib.path): run `make test-deps` (it installs the PyPI package wiremock into .venv)")
}

/// Waits (at most 60 s) until WireMock answers its admin API.
func waitForWireMock(port: Int, process: Process) throws {
    let deadline = Date().addingTimeInterval(60)
    while Date() < deadline, process.isRunning {
        let answer = try curlOutput(["--output", "/dev/null", "--write-out", "%{http_code}", "http://127.0.0.1:\(port)/__admin/mappings?limit=1"])
        if String(decoding: answer, as: UTF8.self) == "200" { return }
        Thread.sleep(forTimeInterval: 0.2)
    }
    throw SetUpFailure("WireMock did not start on port \(port) within 60 s")
}

/// Why the servers could not be started.
private struct SetUpFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
