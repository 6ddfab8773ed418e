import Foundation
import Understudy
import UnderstudyServer
import UnderstudyURLProtocol
import XCTest
import UnderstudyTestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the admin API tests share: sending to an `AdminAPI` directly, reading its JSON, and
/// filling a journal by real exchanges through a `StubServer`.
class AdminAPITestCase: XCTestCase {
    func send(
        _ admin: AdminAPI, _ method: String, _ target: String, body: String? = nil, data: Data? = nil, headers: HeaderFields = [:]
    ) async -> AdminResponse {
        await admin.handle(AdminRequest(method: method, target: target, headers: headers, body: data ?? Data((body ?? "").utf8)))
    }

    /// The body as text, checking the JSON framing every body has.
    func text(_ response: AdminResponse, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        XCTAssertEqual(response.headers["Content-Type"], "application/json", file: file, line: line)
        XCTAssertEqual(response.headers["Content-Length"], String(response.body.count), file: file, line: line)
        let text = String(decoding: response.body, as: UTF8.self)
        XCTAssertTrue(text.hasSuffix("\n"), "a body ends with a newline", file: file, line: line)
        return String(text.dropLast())
    }

    func decode<T: Decodable>(_ type: T.Type, _ response: AdminResponse) throws -> T {
        try JSONDecoder().decode(type, from: response.body)
    }

    // MARK: - Real exchanges

    /// A server for each registry a test sends requests to, started on first use.
    var servers: [ObjectIdentifier: StubServer] = [:]

    /// Sends `method url` through a `StubServer` serving `registry` (started on first use and
    /// stopped when the test ends) in absolute form, as a client of a forward proxy does, so the
    /// journal records `url` itself; waits until the server has journaled it completely.
    /// - Returns: the journal entry's id.
    @discardableResult
    func exchange(
        _ registry: StubRegistry, _ url: String, method: String = "GET", headers: [(String, String)] = [], body: Data? = nil,
        file: StaticString = #filePath, line: UInt = #line
    ) async throws -> Int {
        let server: StubServer
        if let running = servers[ObjectIdentifier(registry)] {
            server = running
        } else {
            server = try await StubServer.start(serving: registry)
            servers[ObjectIdentifier(registry)] = server
            addTeardownBlock { try await server.stop() }
        }
        let host = try XCTUnwrap(URL(string: url)?.host, file: file, line: line)
        let lastID = registry.journal.interactions.last?.id ?? 0
        var head = "\(method) \(url) HTTP/1.1\r\nHost: \(host)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let body { head += "Content-Length: \(body.count)\r\n" }
        let socket = try RawSocket(port: server.port)
        socket.send(Array((head + "\r\n").utf8) + Array(body ?? Data()))
        let answer = socket.read(stoppingWhen: { RawResponse.parse($0).count == 1 })
        XCTAssertNotEqual(answer.ending, .timedOut, "\(method) \(url) was answered, or the connection ended: \(answer)", file: file, line: line)
        try await waitUntilSettled(registry, file: file, line: line)
        let entry = try XCTUnwrap(registry.journal.interactions.last, "\(method) \(url) was journaled", file: file, line: line)
        XCTAssertGreaterThan(entry.id, lastID, "\(method) \(url) was journaled", file: file, line: line)
        return entry.id
    }

    /// Waits (at most 5 s) until no journal entry is in flight: a server may finish an entry
    /// just after its client has the answer.
    func waitUntilSettled(_ registry: StubRegistry, file: StaticString = #filePath, line: UInt = #line) async throws {
        let deadline = Date().addingTimeInterval(5)
        while registry.journal.interactions.contains(where: { $0.outcome == .inFlight }) {
            guard Date() < deadline else {
                return XCTFail("journal entries still in flight after 5 s: \(registry.journal.interactions)", file: file, line: line)
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("admin-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }
}
