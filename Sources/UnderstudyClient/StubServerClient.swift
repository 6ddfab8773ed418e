import Foundation
import Understudy
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Drives a running Understudy server (`understudy serve`, or a `StubServer` in another
/// process) over its admin API, with the same Swift you write for in-process stubs.
///
/// For UI tests: the app runs in a process of its own, so in-process stubs never reach it. Run
/// `understudy serve` on the host (the simulator shares the host's loopback), launch the app
/// with the server's URL, and stub and assert from the test:
///
/// ```swift
/// let server = StubServerClient(baseURL: URL(string: "http://127.0.0.1:8080")!)
/// try await server.stub(.path("/avatar.png"), response: .image(.generated(width: 64, height: 64, pattern: .checkerboard), as: .png), named: "avatar")
/// app.launchEnvironment["IMAGE_BASE_URL"] = "http://127.0.0.1:8080"
/// app.launch()
/// try await server.wait(for: .path("/avatar.png"))
/// XCTAssertRequested(try await server.journal(), .path("/avatar.png"), times: 1)
/// ```
///
/// A stub crosses the wire in the stub-file schema. What has no spelling there (a closure, a
/// `.custom` matcher, `||` across different keys, `!`, a `URLError` fault) is a thrown
/// ``StubServerClientError`` naming it, before anything is sent. A file on this machine
/// (`.file(url)`, `.image(.file(url), ...)`) is sent as its bytes, so the server need not see
/// the test's files.
public struct StubServerClient: Sendable {
    /// The server's URL: scheme, host and port (`http://127.0.0.1:8080`).
    public let baseURL: URL
    /// The admin token the server was started with (`--admin-token`), or `nil`.
    public let token: String?
    private let session: URLSession

    /// A client of the server at `baseURL`.
    /// - Parameters:
    ///   - baseURL: the server's URL, e.g. `http://127.0.0.1:8080`.
    ///   - token: the server's admin token, sent as `Authorization: Bearer <token>`.
    ///   - session: the session the admin requests go through; a fresh ephemeral one by default.
    public init(baseURL: URL, token: String? = nil, session: URLSession = URLSession(configuration: .ephemeral)) {
        self.baseURL = baseURL
        self.token = token
        self.session = session
    }

    // MARK: Stubs

    /// Answers requests matching `matcher` with `response`, on the server.
    /// - Parameters:
    ///   - matcher: the requests to answer; a closure cannot cross the wire.
    ///   - name: the stub's name; by default `<file>:<line>` of the call, as in process.
    ///   - priority: higher wins among stubs that match.
    ///   - times: how many requests it answers before it stops matching; `nil` for any number.
    ///   - response: the response; a closure or a `URLError` fault cannot cross the wire.
    ///   - fileID: where the stub is registered, for its default name; leave the default.
    ///   - line: the line it is registered on, for its default name; leave the default.
    /// - Returns: the stub's name.
    /// - Throws: ``StubServerClientError`` when the stub cannot cross the wire (nothing is
    ///   sent), the server refuses it, or the server cannot be reached.
    @discardableResult
    public func stub(
        _ matcher: RequestMatcher, named name: String? = nil, priority: Int = 0, times: Int? = nil,
        response: StubResponse, fileID: String = #fileID, line: Int = #line
    ) async throws -> String {
        try await stub(matcher, named: name, priority: priority, times: times, responses: [response], fileID: fileID, line: line)
    }

    /// Answers requests matching `matcher` with `response`, on the server, under `name`: the
    /// same as ``stub(_:named:priority:times:response:fileID:line:)``, with the response first.
    ///
    /// ```swift
    /// try await client.stub(.path("/a.png"), response: .image(.generated(width: 8, height: 8, pattern: .gradient), as: .png), named: "a")
    /// ```
    /// - Parameters:
    ///   - matcher: the requests to answer; a closure cannot cross the wire.
    ///   - response: the response; a closure or a `URLError` fault cannot cross the wire.
    ///   - name: the stub's name.
    ///   - priority: higher wins among stubs that match.
    ///   - times: how many requests it answers before it stops matching; `nil` for any number.
    /// - Returns: the stub's name.
    @discardableResult
    public func stub(
        _ matcher: RequestMatcher, response: StubResponse, named name: String, priority: Int = 0, times: Int? = nil
    ) async throws -> String {
        try await stub(matcher, named: name, priority: priority, times: times, responses: [response])
    }

    /// Answers requests matching `matcher` with `responses` in order, on the server; the last
    /// one repeats.
    /// - Parameters:
    ///   - matcher: the requests to answer; a closure cannot cross the wire.
    ///   - name: the stub's name; by default `<file>:<line>` of the call, as in process.
    ///   - priority: higher wins among stubs that match.
    ///   - times: how many requests it answers before it stops matching; `nil` for any number.
    ///   - responses: the responses, in order; the last repeats.
    ///   - fileID: where the stub is registered, for its default name; leave the default.
    ///   - line: the line it is registered on, for its default name; leave the default.
    /// - Returns: the stub's name.
    /// - Throws: ``StubServerClientError``, as ``stub(_:named:priority:times:response:fileID:line:)``.
    @discardableResult
    public func stub(
        _ matcher: RequestMatcher, named name: String? = nil, priority: Int = 0, times: Int? = nil,
        responses: [StubResponse], fileID: String = #fileID, line: Int = #line
    ) async throws -> String {
        guard !responses.isEmpty else { throw StubServerClientError("a sequence stub needs at least one response") }
        let chosen = name ?? "\(fileID):\(line)"
        let document: JSONValue
        do {
            document = try StubFileWriter.stub(named: chosen, matcher: matcher, priority: priority, times: times, responses: responses)
        } catch {
            throw StubServerClientError("cannot send stub '\(chosen)': \(error.description)")
        }
        let body = try JSONEncoder().encode(JSONValue.object(["stubs": .array([document])]))
        _ = try await send("POST", "stubs", body: body, expecting: [201])
        return chosen
    }

    /// Removes the stub called `name`.
    /// - Throws: ``StubServerClientError`` with the server's 404 when there is none.
    public func removeStub(named name: String) async throws {
        _ = try await send("DELETE", "stubs/\(Self.escaped(name))", expecting: [204])
    }

    /// Removes every stub, those loaded from files included.
    public func removeAllStubs() async throws {
        _ = try await send("DELETE", "stubs", expecting: [204])
    }

    /// Puts the server back as it started: every stub dropped (those this client added too) and
    /// the stub files read again, `times`, sequences and scenarios restarted, the journal cleared.
    public func reset() async throws {
        _ = try await send("POST", "reset", expecting: [200])
    }

    // MARK: The journal

    /// A snapshot of the server's journal, read as a local one is: `interactions`, `unmatched`,
    /// `count(matching:)`; `XCTAssertRequested` and `expectRequested` take it as they take a
    /// registry. Entries are numbered from 1 in the snapshot.
    public func journal() async throws -> Journal {
        let data = try await send("GET", "requests", expecting: [200])
        let unmatched = try? await send("GET", "near-misses", expecting: [200])
        return try RemoteJournal.snapshot(requests: data, nearMisses: unmatched)
    }

    /// Clears the server's journal.
    public func clearJournal() async throws {
        _ = try await send("DELETE", "requests", expecting: [204])
    }

    /// Waits until the server has seen `count` requests matching `matcher`, as
    /// `Journal.wait(for:count:timeout:)` does for a local journal.
    /// - Throws: `JournalTimeoutError` when `timeout` passes first, saying how many it saw.
    public func wait(for matcher: RequestMatcher = .any, count: Int = 1, timeout: Duration = .seconds(5)) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        var seen = 0
        while true {
            seen = try await journal().count(matching: matcher)
            if seen >= count { return }
            if clock.now >= deadline { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw JournalTimeoutError(matcher: matcher, expected: count, seen: seen, timeout: timeout)
    }

    // MARK: Gates and networks

    /// Opens the gate called `name`: bodies held at it go on, later ones pass.
    public func releaseGate(_ name: String) async throws {
        _ = try await send("POST", "gates/\(Self.escaped(name))/release", expecting: [200])
    }

    /// Closes the gate called `name` again: later bodies are held at it.
    public func closeGate(_ name: String) async throws {
        _ = try await send("POST", "gates/\(Self.escaped(name))/close", expecting: [200])
    }

    /// Delivers every response from now on over `profile` (latency and rate), or over the
    /// server's own network again with `nil`.
    public func setNetwork(_ profile: NetworkProfile?) async throws {
        guard let profile else {
            _ = try await send("DELETE", "network", expecting: [200])
            return
        }
        let body: JSONValue = if let name = profile.name {
            ["profile": .string(name)]
        } else {
            ["latency": .string("\(Int((profile.latency / .milliseconds(1)).rounded()))ms"), "rate": .string(profile.rate.description)]
        }
        _ = try await send("PUT", "network", body: try JSONEncoder().encode(body), expecting: [200])
    }

    // MARK: The wire

    private func send(_ method: String, _ path: String, body: Data? = nil, expecting statuses: Set<Int>) async throws -> Data {
        guard let url = URL(string: "__admin/" + path, relativeTo: baseURL) else {
            throw StubServerClientError("cannot make an admin URL of \(baseURL) and \(path)")
        }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.httpBody = body
        if body != nil { request.setValue("application/json", forHTTPHeaderField: "Content-Type") }
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        let (data, response): (Data, URLResponse)
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            throw StubServerClientError("\(method) \(url.absoluteString) failed: \(error.localizedDescription); is `understudy serve` running there?")
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard statuses.contains(status) else {
            let said = (try? JSONDecoder().decode(AdminError.self, from: data))?.message ?? String(decoding: data.prefix(500), as: UTF8.self)
            throw StubServerClientError("\(method) \(url.absoluteString) answered \(status): \(said)", status: status)
        }
        return data
    }

    private static func escaped(_ name: String) -> String {
        name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? name
    }

    /// The admin API's error body: `{"error": ..., "field": ..., "issues": [...]}`.
    private struct AdminError: Decodable {
        var error: String
        var issues: [String]?

        var message: String { ([error] + (issues ?? [])).joined(separator: "\n") }
    }
}

/// Why a ``StubServerClient`` call failed: a stub that cannot cross the wire (nothing was
/// sent), a server that refused (its status and its words), or one that could not be reached.
public struct StubServerClientError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, and what to do.
    public let description: String
    /// The server's status, when it answered.
    public let status: Int?

    init(_ description: String, status: Int? = nil) {
        self.description = description
        self.status = status
    }
}
