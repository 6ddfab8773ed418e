import Foundation
import Understudy
import UnderstudyServer
import UnderstudyURLProtocol
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The same stubs behind both transports, at the same base URL: a URLSession stubbed in-process
/// (unmatched requests answered 404, `.notFound`) and a `StubServer` on loopback reached by a
/// plain URLSession. The in-process session uses the server's base URL too (its requests never
/// leave the process), so anything that quotes the URL, such as the unmatched report, can be
/// compared byte for byte.
///
/// Only public behaviour is observed: what URLSession hands the client, and the journal.
enum TransportPair {
    /// A transport a case runs through.
    enum Transport: String, CaseIterable, Sendable {
        case inProcess, server
    }

    /// Response headers left out of every comparison, lowercased: none. Neither transport sends
    /// a `Date` of its own (a case forwarding to a real upstream ignores the upstream's, see
    /// ``differences(_:compareResults:ignoringHeaders:)``). The server sends `Connection: close`
    /// only on answers it cuts short (faults, truncation), which URLSession reports as errors,
    /// and on `Connection: close` requests, which URLSession does not make. `Transfer-Encoding`
    /// never goes out: every answer has a Content-Length. A header added here must say which
    /// transport cannot carry it.
    static let transportOnlyHeaders: Set<String> = []

    /// Headers a handler's answer dates when it is made: each transport's request makes its own
    /// answer, and the two may fall in different seconds.
    static let madeAtRequestTime: Set<String> = ["last-modified"]

    /// What a client saw for one request.
    enum ClientResult: Equatable, CustomStringConvertible {
        /// A response: the final URL, status, headers (`Name: value`, sorted, without
        /// ``transportOnlyHeaders``) and body bytes.
        case response(url: String, status: Int, headers: [String], body: Data)
        /// A `URLError`, by code.
        case failure(URLError.Code)
        /// Any other error, described.
        case otherError(String)

        var description: String {
            switch self {
            case .response(let url, let status, let headers, let body):
                let text = String(data: body, encoding: .utf8).map { $0.debugDescription } ?? "<\(body.count) bytes>"
                return "\(status) \(url)\n    " + headers.joined(separator: "\n    ") + "\n    body \(body.count) bytes: \(text)"
            case .failure(let code):
                return "URLError \(code.rawValue)"
            case .otherError(let text):
                return "error \(text)"
            }
        }

        var status: Int? {
            if case .response(_, let status, _, _) = self { return status }
            return nil
        }

        var body: Data? {
            if case .response(_, _, _, let body) = self { return body }
            return nil
        }

        var text: String? { body.map { String(decoding: $0, as: UTF8.self) } }

        /// The value of a compared header, by name (case-insensitive).
        func header(_ name: String) -> String? {
            guard case .response(_, _, let headers, _) = self else { return nil }
            let prefix = name.lowercased() + ": "
            return headers.first { $0.lowercased().hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
        }

        var errorCode: URLError.Code? {
            if case .failure(let code) = self { return code }
            return nil
        }
    }

    /// One journal entry, reduced to what both transports must agree on. (Not the transport,
    /// and not `redirectedFrom`: a server sees each hop as a separate request.)
    struct JournalLine: Equatable, CustomStringConvertible {
        let method: String
        let target: String
        let stubName: String?
        let status: Int?
        let bodyBytesSent: Int
        let outcome: String

        init(_ interaction: Interaction) {
            method = interaction.request.method
            let query = interaction.request.url.query.map { "?" + $0 } ?? ""
            target = interaction.request.path + query
            stubName = interaction.stubName
            status = interaction.status
            bodyBytesSent = interaction.bodyBytesSent
            outcome = interaction.outcome.description
        }

        var description: String {
            "\(method) \(target) -> \(stubName.map { "stub \"\($0)\"" } ?? "unmatched") \(status.map(String.init) ?? "-") \(bodyBytesSent) bytes, \(outcome)"
        }
    }

    /// Everything one transport showed for a case.
    struct Observation {
        let transport: Transport
        let results: [ClientResult]
        /// How long each request took, in the same order.
        let durations: [TimeInterval]
        let journal: [JournalLine]

        /// The same without the headers named in `names` (lowercased).
        func ignoring(_ names: Set<String>) -> Observation {
            guard !names.isEmpty else { return self }
            let stripped = results.map { result -> ClientResult in
                guard case .response(let url, let status, let headers, let body) = result else { return result }
                let kept = headers.filter { line in !names.contains(line.prefix { $0 != ":" }.lowercased()) }
                return .response(url: url, status: status, headers: kept, body: body)
            }
            return Observation(transport: transport, results: stripped, durations: durations, journal: journal)
        }
    }

    /// The client side of one transport in a case: sends requests and records what came back.
    final class Client {
        let transport: Transport
        let session: URLSession
        let base: URL
        let stubs: StubRegistry
        private(set) var results: [ClientResult] = []
        private(set) var durations: [TimeInterval] = []

        init(transport: Transport, session: URLSession, base: URL, stubs: StubRegistry) {
            self.transport = transport
            self.session = session
            self.base = base
            self.stubs = stubs
        }

        /// `base` with `path` (which may carry a query) appended.
        func url(_ path: String) -> URL {
            URL(string: base.absoluteString + path)!
        }

        /// Sends `method path` (10 s timeout unless given) and records the result.
        @discardableResult
        func fetch(
            _ path: String, method: String = "GET", body: Data? = nil, headers: [String: String] = [:], timeout: TimeInterval = 10
        ) async -> ClientResult {
            var request = URLRequest(url: url(path))
            request.httpMethod = method
            request.httpBody = body
            request.timeoutInterval = timeout
            for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
            return await fetch(request)
        }

        /// Sends `request` and records the result.
        @discardableResult
        func fetch(_ request: URLRequest) async -> ClientResult {
            let start = Date()
            let result: ClientResult
            do {
                let (data, response) = try await session.data(for: request)
                guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
                result = .response(url: http.url?.absoluteString ?? "", status: http.statusCode, headers: Self.headerLines(http), body: data)
            } catch let error as URLError {
                result = .failure(error.code)
            } catch {
                result = .otherError("\(error)")
            }
            durations.append(Date().timeIntervalSince(start))
            results.append(result)
            return result
        }

        static func headerLines(_ response: HTTPURLResponse) -> [String] {
            response.allHeaderFields.compactMap { name, value -> String? in
                let name = "\(name)"
                guard !TransportPair.transportOnlyHeaders.contains(name.lowercased()) else { return nil }
                return "\(name): \(value)"
            }.sorted()
        }
    }

    /// Runs `body` once per transport, each time with fresh stubs made by `setUp`, and returns
    /// what each transport's client and journal saw (in-process first).
    static func observe(
        configuration: StubServer.Configuration = .init(),
        _ setUp: (StubRegistry) throws -> Void,
        _ body: (Client) async throws -> Void
    ) async throws -> [Observation] {
        // Both registries are set up back to back: a body not read from a file is
        // `Last-Modified` when its stub was made, to the second, and the two must agree. Set up
        // across a second's turn, they are set up again.
        var serverStubs = StubRegistry(), inProcessStubs = StubRegistry()
        for _ in 0..<3 {
            serverStubs = StubRegistry()
            inProcessStubs = StubRegistry()
            let before = Date().timeIntervalSince1970.rounded(.down)
            try setUp(serverStubs)
            try setUp(inProcessStubs)
            if Date().timeIntervalSince1970.rounded(.down) == before { break }
        }
        let server = try await StubServer.start(serving: serverStubs, configuration: configuration)
        var observations: [Observation] = []
        do {
            for transport in Transport.allCases {
                let stubs: StubRegistry
                let session: URLSession
                switch transport {
                case .inProcess:
                    stubs = inProcessStubs
                    session = URLSession(configuration: .stubbed(by: stubs, unmatched: .notFound))
                case .server:
                    stubs = serverStubs
                    session = URLSession(configuration: .ephemeral)
                }
                let client = Client(transport: transport, session: session, base: server.baseURL, stubs: stubs)
                do {
                    try await body(client)
                } catch {
                    session.invalidateAndCancel()
                    throw error
                }
                session.invalidateAndCancel()
                let journal = await settledJournal(stubs)
                observations.append(Observation(
                    transport: transport, results: client.results, durations: client.durations, journal: journal
                ))
            }
        } catch {
            try await server.stop()
            throw error
        }
        try await server.stop()
        return observations
    }

    /// The journal once no entry is in flight any more (a server may finish an entry just after
    /// its client has the response, or once it notices the client gave up); at most 5 s.
    static func settledJournal(_ stubs: StubRegistry) async -> [JournalLine] {
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline, stubs.journal.interactions.contains(where: { $0.outcome == .inFlight }) {
            try? await Task.sleep(for: .milliseconds(10))
        }
        return stubs.journal.interactions.map(JournalLine.init)
    }

    /// What differs between the two transports' observations, or `nil` when they agree:
    /// results and journal entries, one line per difference.
    /// - Parameter ignoringHeaders: headers (lowercased) that may differ in this case, such as
    ///   the `Date` of a real upstream fetched once per transport.
    static func differences(_ observations: [Observation], compareResults: Bool = true, ignoringHeaders: Set<String> = []) -> String? {
        guard observations.count == 2 else { return "expected two observations, got \(observations.count)" }
        let (a, b) = (observations[0].ignoring(ignoringHeaders), observations[1].ignoring(ignoringHeaders))
        var lines: [String] = []
        if compareResults {
            if a.results.count != b.results.count {
                lines.append("\(a.results.count) results in-process, \(b.results.count) over the server")
            }
            for (index, pair) in zip(a.results, b.results).enumerated() where pair.0 != pair.1 {
                lines.append("request \(index + 1):\n  in-process: \(pair.0)\n  server:     \(pair.1)")
            }
        }
        if a.journal != b.journal {
            lines.append("journal:\n  in-process:\n    " + a.journal.map(\.description).joined(separator: "\n    ")
                + "\n  server:\n    " + b.journal.map(\.description).joined(separator: "\n    "))
        }
        return lines.isEmpty ? nil : lines.joined(separator: "\n")
    }
}

extension XCTestCase {
    /// Runs a case through both transports, fails with every difference between them (results
    /// and journal), and returns the in-process observation for the case's own expectations.
    @discardableResult
    func conform(
        _ name: String, configuration: StubServer.Configuration = .init(), ignoringHeaders: Set<String> = [],
        file: StaticString = #filePath, line: UInt = #line,
        _ setUp: (StubRegistry) throws -> Void,
        _ body: (TransportPair.Client) async throws -> Void
    ) async throws -> TransportPair.Observation {
        let observations = try await TransportPair.observe(configuration: configuration, setUp, body)
        if let differences = TransportPair.differences(observations, ignoringHeaders: ignoringHeaders) {
            XCTFail("\(name): the transports differ:\n\(differences)", file: file, line: line)
        }
        return observations[0]
    }
}
