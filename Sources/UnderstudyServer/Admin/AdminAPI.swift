import Foundation
import Understudy
import UnderstudyHAR

/// The admin API of `understudy serve`: JSON endpoints under `/__admin/` that inspect and
/// change a ``StubRegistry`` while it serves.
///
/// Socket-free: the server's HTTP handler turns each request under ``prefix`` into an
/// ``AdminRequest`` and writes back the ``AdminResponse``. Admin requests never reach the
/// stubs and never enter the journal.
///
/// | Endpoint | Answer |
/// |---|---|
/// | `GET health` | 200 ``AdminJSON/Health`` |
/// | `GET stubs` | 200 ``AdminJSON/StubList``, precedence order |
/// | `GET stubs/{name}` | 200 ``AdminJSON/StubSummary``, or 404 |
/// | `POST stubs` | 201 ``AdminJSON/Added``: one stub or `{stubs: [...]}` in the stub-file schema, JSON (YAML when `Content-Type` says yaml) |
/// | `DELETE stubs/{name}` | 204, or 404 naming it |
/// | `DELETE stubs` | 204 |
/// | `GET requests` | 200 ``AdminJSON/RequestList``, oldest first; `?unmatched=true`, `?offset=N`, `?limit=N` |
/// | `DELETE requests` | 204 |
/// | `POST requests/count` | 200 ``AdminJSON/Count`` for a body `{"request": {...}}` |
/// | `GET near-misses` | 200 ``AdminJSON/NearMissList`` |
/// | `GET requests.har` | 200 the journal as HAR 1.2 with the bodies the stubs rendered (files, data, JSON, images generated, transcoded or resized; closures' and forwards' when ``Journal/keepsBodies`` is set); `?redact=true` hides secrets as ``HARRedaction`` does |
/// | `GET ca.pem` | 200 the local CA's certificate (PEM), or 404 without one; never its key |
/// | `POST reset` | 200 ``AdminJSON/ResetDone``: files re-read, `times` and sequences restarted, journal cleared |
/// | `GET gates` | 200 ``AdminJSON/GateList``: each gate's name, whether open, requests held, bytes they sent |
/// | `POST gates/{name}/release` | 200 ``AdminJSON/GateSummary``: held bodies go on, later ones pass |
/// | `POST gates/{name}/close` | 200 ``AdminJSON/GateSummary``: later bodies are held again |
/// | `GET network` | 200 ``AdminJSON/NetworkState``: the profile in force, the run-time one, the server's |
/// | `PUT network` | 200 ``AdminJSON/NetworkState``: `{"profile": "slow-3g"}` or `{"latency": "300ms", "rate": "800kbit/s"}` from now on |
/// | `DELETE network` | 200 ``AdminJSON/NetworkState``: the run-time profile removed (the server's `--network` again) |
///
/// WireMock's endpoints (`mappings`, `requests/{id}`, `requests/find`, `requests/unmatched`,
/// `near-misses/request`, `scenarios`, `settings`, ...) are in AdminAPI+Mappings.swift and
/// AdminAPI+WireMock.swift; see the MovingFromWireMock article.
///
/// Bad input is a 400 whose ``AdminJSON/Error`` names the field (on WireMock's own endpoints,
/// WireMock's `{"errors": [...]}`, which its Java client reads); a known path with another
/// method is a 405 with `Allow`; an unknown path is a 404; with a token, a request without
/// `Authorization: Bearer <token>` is a 401. `HEAD` is answered like `GET` (the transport
/// drops the body).
///
/// ```swift
/// let admin = AdminAPI(registry: stubs, token: nil)
/// let response = await admin.handle(AdminRequest(method: "GET", target: "/__admin/health"))
/// ```
package struct AdminAPI: Sendable {
    /// Every admin path starts with this.
    package static let prefix = "/__admin/"

    /// The registry served.
    package let registry: StubRegistry
    /// The bearer token every request must carry, or `nil` for none.
    package let token: String?
    /// The local CA's certificate, served at `ca.pem`.
    package let certificateAuthorityPEM: @Sendable () -> String?
    /// Where `file:` references in posted stubs resolve (and may not leave); `nil` refuses them.
    package let stubDirectory: URL?
    /// The server's open connections, for `health`; `nil` outside a server.
    package let connectionCount: (@Sendable () -> Int)?
    /// The server's network, shown and changed at `network`; `nil` outside a server.
    package let network: NetworkSetting?

    /// How issues in posted documents name them, and the prefix default stub names would get.
    static let documentName = "request body"

    /// Creates the admin API of `registry`.
    /// - Parameters:
    ///   - registry: the stubs and journal to inspect and change.
    ///   - token: when non-nil, every request must send `Authorization: Bearer <token>`.
    ///   - stubDirectory: where `file:` paths in posted stubs resolve; `nil` refuses them.
    ///   - connectionCount: the server's open connections, reported by `health`.
    ///   - certificateAuthorityPEM: the local CA's certificate, served at `ca.pem` (made on first need).
    ///   - network: the server's network, shown and changed at `network`.
    package init(
        registry: StubRegistry, token: String?, stubDirectory: URL? = nil, connectionCount: (@Sendable () -> Int)? = nil,
        certificateAuthorityPEM: @escaping @Sendable () -> String? = { nil }, network: NetworkSetting? = nil
    ) {
        self.network = network
        self.certificateAuthorityPEM = certificateAuthorityPEM
        self.registry = registry
        self.token = token
        self.stubDirectory = stubDirectory
        self.connectionCount = connectionCount
    }

    /// Whether a request path belongs to the admin API (and must not be matched against stubs).
    package static func isAdminPath(_ path: String) -> Bool {
        path.hasPrefix(prefix) || path == String(prefix.dropLast())
    }

    /// Answers one admin request.
    package func handle(_ request: AdminRequest) async -> AdminResponse {
        do {
            if let route = DashboardRoute(path: request.path) {
                return try await dashboard(request, route)
            }
            try authorize(request)
            let endpoint = try Endpoint(path: request.path)
            let method = request.method == "HEAD" ? "GET" : request.method
            guard endpoint.methods.contains(method) else {
                throw AdminFailure(
                    405, "method \(request.method) is not allowed on \(request.path); expected \(Self.list(endpoint.methods, "or"))",
                    field: "method", extraHeaders: ["Allow": endpoint.methods.joined(separator: ", ")]
                )
            }
            do {
                return try await respond(to: request, at: endpoint, method: method)
            } catch let failure as AdminFailure where endpoint.isWireMocks {
                return failure.wireMockResponse
            }
        } catch let failure as AdminFailure {
            return failure.response
        } catch {
            return AdminResponse.error(500, "\(error)")
        }
    }

    private func respond(to request: AdminRequest, at endpoint: Endpoint, method: String) async throws -> AdminResponse {
        switch (endpoint, method) {
        case (.health, _):
            try checkQuery(request, allowed: [])
            return health()
        case (.stubs, "GET"):
            try checkQuery(request, allowed: [])
            return listStubs()
        case (.stubs, "POST"):
            try checkQuery(request, allowed: [])
            return try addStubs(request)
        case (.stubs, _):
            try checkQuery(request, allowed: [])
            registry.removeAllStubs()
            return .noContent
        case (.stub(let name), "GET"):
            try checkQuery(request, allowed: [])
            return try showStub(named: name)
        case (.stub(let name), _):
            try checkQuery(request, allowed: [])
            return try removeStub(named: name)
        case (.requests, "GET"):
            try checkQuery(request, allowed: ["limit", "offset", "unmatched", "since"])
            return try listRequests(request)
        case (.requests, _):
            try checkQuery(request, allowed: [])
            registry.journal.clear()
            return .noContent
        case (.requestCount, _):
            try checkQuery(request, allowed: [])
            return try countRequests(request)
        case (.nearMisses, _):
            try checkQuery(request, allowed: [])
            return nearMisses()
        case (.har, _):
            try checkQuery(request, allowed: ["redact"])
            return try await har(redacting: flag(request, "redact") ? HARRedaction() : nil)
        case (.reset, _):
            try checkQuery(request, allowed: [])
            return try reset()
        case (.certificateAuthority, _):
            try checkQuery(request, allowed: [])
            guard let pem = certificateAuthorityPEM() else {
                throw AdminFailure(404, "this server has no local CA: start it with TLS from the local CA (--tls-port, or tls: .localCA)")
            }
            return AdminResponse(status: 200, headers: ["Content-Type": "application/x-pem-file", "Content-Length": String(pem.utf8.count)], body: Data(pem.utf8))
        case (.gates, _):
            try checkQuery(request, allowed: [])
            return listGates()
        case (.gate(let name, let action), _):
            try checkQuery(request, allowed: [])
            return operateGate(named: name, action)
        case (.network, _):
            return try network(request, method: method)
        default:
            return try respondAsWireMock(to: request, at: endpoint, method: method)
        }
    }

    /// WireMock's endpoints (AdminAPI+Mappings.swift, AdminAPI+WireMock.swift).
    private func respondAsWireMock(to request: AdminRequest, at endpoint: Endpoint, method: String) throws -> AdminResponse {
        switch (endpoint, method) {
        case (.mappings, "GET"):
            try checkQuery(request, allowed: ["limit", "offset"])
            return try listMappings(request)
        case (.mappings, "POST"):
            try checkQuery(request, allowed: [])
            return try createMapping(request)
        case (.mappings, _):
            try checkQuery(request, allowed: [])
            return deleteAllMappings()
        case (.mapping(let id), "GET"):
            try checkQuery(request, allowed: [])
            return try showMapping(id)
        case (.mapping(let id), "PUT"):
            try checkQuery(request, allowed: [])
            return try updateMapping(id, request)
        case (.mapping(let id), _):
            try checkQuery(request, allowed: [])
            return try deleteMapping(id)
        case (.mappingsReset, _):
            try checkQuery(request, allowed: [])
            return try resetMappings()
        case (.mappingsSave, _):
            try checkQuery(request, allowed: [])
            return try saveMappings()
        case (.mappingsImport, _):
            try checkQuery(request, allowed: [])
            return try importMappings(request)
        case (.mappingsNew, _):
            try checkQuery(request, allowed: [])
            return try createMapping(request)
        case (.mappingsEdit, _):
            try checkQuery(request, allowed: [])
            return try updateMapping(try mappingID(in: request), request)
        case (.mappingsRemove, _):
            try checkQuery(request, allowed: [])
            return try deleteMapping(try mappingID(in: request))
        case (.mappingsFindByMetadata, _):
            try checkQuery(request, allowed: [])
            return try findMappings(byMetadata: request)
        case (.mappingsRemoveByMetadata, _):
            try checkQuery(request, allowed: [])
            return try removeMappings(byMetadata: request)
        case (.request(let id), "GET"):
            try checkQuery(request, allowed: [])
            return try showRequest(id)
        case (.request(let id), _):
            try checkQuery(request, allowed: [])
            return try removeRequest(id)
        case (.requestsRemove, _):
            try checkQuery(request, allowed: [])
            return try removeRequests(request)
        case (.requestsReset, _):
            try checkQuery(request, allowed: [])
            registry.journal.clear()
            return .json(200, [:] as JSONValue)
        case (.requestsFind, _):
            try checkQuery(request, allowed: [])
            return try findRequests(request)
        case (.requestsUnmatched, _):
            try checkQuery(request, allowed: [])
            return unmatchedRequests()
        case (.requestsUnmatchedNearMisses, _):
            try checkQuery(request, allowed: [])
            return unmatchedNearMisses()
        case (.nearMissesForRequest, _):
            try checkQuery(request, allowed: [])
            return try nearMissesForRequest(request)
        case (.nearMissesForPattern, _):
            try checkQuery(request, allowed: [])
            return try nearMissesForPattern(request)
        case (.scenarios, _):
            try checkQuery(request, allowed: [])
            return listScenarios()
        case (.scenariosReset, _):
            try checkQuery(request, allowed: [])
            registry.resetScenarios()
            return .json(200, [:] as JSONValue)
        case (.scenarioState(let name), _):
            try checkQuery(request, allowed: [])
            return try setScenarioState(name, request)
        case (.settings, "GET"):
            try checkQuery(request, allowed: [])
            return showSettings()
        case (.settings, _):
            try checkQuery(request, allowed: [])
            return try updateSettings(request)
        default:
            throw AdminFailure(404, "no admin endpoint \(request.path)")
        }
    }

    // MARK: - HAR

    private func har(redacting redaction: HARRedaction?) async throws -> AdminResponse {
        // The bodies come from the registry's renderings (canned answers) and from rendering
        // again (images, transcoded bodies), not from copies in the journal.
        var document = HARDocument(interactions: await registry.fillingRenderedBodies(registry.journal.interactions))
        if let redaction { document = document.redacted(redaction) }
        var body = try document.encoded()
        body.append(0x0A)
        return AdminResponse(
            status: 200, headers: ["Content-Type": "application/json", "Content-Length": String(body.count)], body: body
        )
    }

    // MARK: - Health and reset

    private func health() -> AdminResponse {
        let journal = registry.journal
        return .json(200, AdminJSON.Health(
            status: "ok", stubs: registry.stubs.count,
            journal: .init(count: journal.count, dropped: journal.droppedCount, limit: journal.limit),
            connections: connectionCount?(), inFlight: journal.inFlightCount
        ))
    }

    private func reset() throws -> AdminResponse {
        do {
            try registry.reset()
        } catch let error as StubFileError {
            var failure = AdminFailure(500, "cannot reset, nothing changed: the stub files have issues:\n\(error)")
            failure.body.issues = error.issues.map(\.description)
            throw failure
        }
        return .json(200, AdminJSON.ResetDone(stubs: registry.stubs.count))
    }

    // MARK: - Input

    func authorize(_ request: AdminRequest) throws {
        guard let token else { return }
        let challenge: HeaderFields = ["WWW-Authenticate": #"Bearer realm="understudy admin""#]
        guard let value = request.headers["Authorization"] else {
            throw AdminFailure(
                401, "missing admin token; expected the header 'Authorization: Bearer <token>'",
                field: "Authorization", extraHeaders: challenge
            )
        }
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        let scheme = "bearer "
        let given = trimmed.lowercased().hasPrefix(scheme)
            ? trimmed.dropFirst(scheme.count).trimmingCharacters(in: .whitespaces) : nil
        guard let given, Self.constantTimeEquals(given, token) else {
            throw AdminFailure(
                401, "wrong admin token; expected the header 'Authorization: Bearer <token>' with the server's --admin-token",
                field: "Authorization", extraHeaders: challenge
            )
        }
    }

    /// Compares without returning early, so response times do not reveal how much matched.
    private static func constantTimeEquals(_ lhs: String, _ rhs: String) -> Bool {
        let l = Array(lhs.utf8), r = Array(rhs.utf8)
        var difference = UInt8(truncatingIfNeeded: l.count ^ r.count)
        for index in 0..<max(l.count, r.count) {
            let a = index < l.count ? l[index] : 0, b = index < r.count ? r[index] : 0
            difference |= a ^ b
        }
        return difference == 0 && l.count == r.count
    }

    func checkQuery(_ request: AdminRequest, allowed: [String]) throws {
        guard let unknown = request.query.keys.sorted().first(where: { !allowed.contains($0) }) else { return }
        let expected = allowed.isEmpty
            ? "\(request.path) takes no query parameters"
            : "expected \(Self.list(allowed, "or"))"
        throw AdminFailure(400, "unknown query parameter '\(unknown)'; \(expected)", field: unknown)
    }

    /// The body as text and its format (YAML when `Content-Type` says so, else JSON).
    func document(of request: AdminRequest, expected: String) throws -> (text: String, format: StubFileLoader.Format) {
        guard !request.body.isEmpty else {
            throw AdminFailure(400, "the request body is empty; expected \(expected) as JSON or YAML", field: "body")
        }
        guard let text = String(data: request.body, encoding: .utf8) else {
            throw AdminFailure(400, "the request body is not UTF-8 text; expected \(expected) as JSON or YAML", field: "body")
        }
        let contentType = request.headers["Content-Type"]?.lowercased() ?? ""
        return (text, contentType.contains("yaml") ? .yaml : .json)
    }

    /// `a`, `a or b`, `a, b or c`.
    static func list(_ items: [String], _ conjunction: String) -> String {
        guard items.count > 1 else { return items.first ?? "" }
        return items.dropLast().joined(separator: ", ") + " \(conjunction) " + items[items.count - 1]
    }
}
