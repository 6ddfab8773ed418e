import Foundation
import Understudy

extension AdminAPI {
    // MARK: - Requests

    /// `GET /__admin/requests` in WireMock's shape (``AdminJSON/RequestList``), newest first:
    /// `?limit=N` the newest N, `?since=ISO-8601` those logged after it; Understudy's
    /// `?unmatched=true` and `?offset=N` (the N oldest skipped) as well.
    func listRequests(_ request: AdminRequest) throws -> AdminResponse {
        let unmatchedOnly = try flag(request, "unmatched")
        let offset = try count(request, "offset") ?? 0
        let limit = try count(request, "limit")
        var since: Date?
        if let text = request.query["since"] {
            guard let date = Self.parseDate(text) else {
                throw AdminFailure(400, "'\(text)' is not a valid since; expected an ISO 8601 time such as 2025-01-02T03:04:05Z", field: "since")
            }
            since = date
        }
        let journal = registry.journal
        var entries = unmatchedOnly ? journal.unmatched : journal.interactions
        if let since { entries = entries.filter { $0.startTime > since } }
        let total = entries.count
        let page = entries.dropFirst(offset).reversed().prefix(limit ?? Int.max)
        return .json(200, AdminJSON.RequestList(requests: events(Array(page)), total: total, requestJournalDisabled: journal.limit == 0))
    }

    /// `GET /__admin/requests/{id}`: one entry by its WireMock id (or Understudy's number).
    func showRequest(_ id: String) throws -> AdminResponse {
        guard let sequence = ServeEvent.sequence(ofID: id), let interaction = registry.journal.interaction(id: sequence) else {
            throw AdminFailure(404, "no request with id '\(id)' in the journal", field: "id")
        }
        return .json(200, events([interaction])[0])
    }

    /// `POST /__admin/requests/count`: WireMock's bare request pattern, or Understudy's
    /// `{"request": {...}}` in the stub-file schema.
    func countRequests(_ request: AdminRequest) throws -> AdminResponse {
        try refuseWithoutJournal()
        return .json(200, AdminJSON.Count(count: registry.journal.count(matching: try requestPattern(request))))
    }

    /// A server started with `--no-request-journal` keeps no requests: a count or search would
    /// answer 0 whatever came, so it is refused, as WireMock refuses it.
    private func refuseWithoutJournal() throws {
        guard registry.journal.limit == 0 else { return }
        throw AdminFailure(500, "The request journal is disabled (--no-request-journal), so no verification is possible")
    }

    /// `POST /__admin/requests/find`: `{"requests": [...]}`, each a logged request, oldest first.
    func findRequests(_ request: AdminRequest) throws -> AdminResponse {
        try refuseWithoutJournal()
        let matching = registry.journal.interactions(matching: try requestPattern(request))
        return .json(200, ["requests": .array(events(matching).map(\.loggedRequest)), "requestJournalDisabled": false] as JSONValue)
    }

    /// `GET /__admin/requests/unmatched`: `{"requests": [...]}`, logged requests, oldest first.
    func unmatchedRequests() -> AdminResponse {
        .json(200, ["requests": .array(events(registry.journal.unmatched).map(\.loggedRequest)), "requestJournalDisabled": false] as JSONValue)
    }

    /// `GET /__admin/requests/unmatched/near-misses`: for each unmatched request, its nearest
    /// stubs now, nearest first (WireMock's `nearMisses`).
    func unmatchedNearMisses() -> AdminResponse {
        var misses: [JSONValue] = []
        let uses = registry.useCounts
        for interaction in registry.journal.unmatched {
            let logged = events([interaction])[0].loggedRequest
            for miss in registry.nearMisses(for: interaction.request) {
                misses.append(nearMiss(request: logged, stubNamed: miss.stubName, distance: miss.distance, uses: uses))
            }
        }
        return .json(200, ["nearMisses": .array(misses)] as JSONValue)
    }

    /// `POST /__admin/near-misses/request`: the stubs nearest to a logged request.
    func nearMissesForRequest(_ request: AdminRequest) throws -> AdminResponse {
        guard let value = try? JSONValue(parsing: request.body), case .object(let fields) = value else {
            throw AdminFailure(400, #"the request body is not a JSON object; expected a request such as {"url": "/a.png", "method": "GET"}"#, field: "body")
        }
        let stubRequest = try loggedRequest(fields)
        let uses = registry.useCounts
        let misses = registry.nearMisses(for: stubRequest).map {
            nearMiss(request: value, stubNamed: $0.stubName, distance: $0.distance, uses: uses)
        }
        return .json(200, ["nearMisses": .array(misses)] as JSONValue)
    }

    /// `POST /__admin/near-misses/request-pattern`: the journal's requests nearest to a pattern.
    func nearMissesForPattern(_ request: AdminRequest) throws -> AdminResponse {
        let matcher = try requestPattern(request)
        let pattern = (try? JSONValue(parsing: request.body)) ?? .null
        let interactions = registry.journal.interactions
        let ranked = interactions.map { ($0, matcher.distance(to: $0.request)) }
            .filter { !matcher.matches($0.0.request) }
            .sorted { $0.1 < $1.1 }
            .prefix(3)
        let misses: [JSONValue] = ranked.map { interaction, distance in
            ["request": events([interaction])[0].loggedRequest, "requestPattern": pattern, "matchResult": ["distance": .number(distance)]]
        }
        return .json(200, ["nearMisses": .array(misses)] as JSONValue)
    }

    // MARK: - Scenarios and settings

    /// `GET /__admin/scenarios`: `{"scenarios": [{"id", "name", "state", "possibleStates", "mappings"}]}`.
    func listScenarios() -> AdminResponse {
        let stubs = registry.stubs
        let uses = registry.useCounts
        let scenarios = registry.scenarioStates.sorted { $0.key < $1.key }.map { name, state -> JSONValue in
            [
                "id": .string(name), "name": .string(name), "state": .string(state),
                "possibleStates": .array(registry.possibleStates(ofScenario: name).map(JSONValue.string)),
                "mappings": .array(stubs.filter { $0.scenario?.name == name }.map { mappingJSON(of: $0, uses: uses) }),
            ]
        }
        return .json(200, ["scenarios": .array(scenarios)] as JSONValue)
    }

    /// `PUT /__admin/scenarios/{name}/state` with `{"state": "..."}` (none: `Started`).
    func setScenarioState(_ name: String, _ request: AdminRequest) throws -> AdminResponse {
        var state = Scenario.startedState
        if !request.body.isEmpty {
            guard let value = try? JSONValue(parsing: request.body), case .object(let fields) = value else {
                throw AdminFailure(400, #"the request body is not a JSON object; expected {"state": "..."}"#, field: "body")
            }
            switch fields["state"] {
            case .string(let given)?: state = given
            case nil: break
            default: throw AdminFailure(400, "state: expected a string", field: "state")
            }
        }
        guard registry.setScenario(name, to: state) else {
            throw AdminFailure(404, "no scenario named '\(name)'; known: \(registry.scenarioStates.keys.sorted().joined(separator: ", "))", field: "name")
        }
        return .json(200, [:] as JSONValue)
    }

    /// `GET /__admin/settings`: `{"settings": {"fixedDelay": ms}}`, or `{"settings": {}}` without
    /// a delay, as WireMock leaves out what is not set; with a connection fault, its `fault` and
    /// `chance` too.
    func showSettings() -> AdminResponse {
        let delay = registry.globalDelay
        let milliseconds = Double(delay.components.seconds) * 1000 + Double(delay.components.attoseconds / 1_000_000_000_000_000)
        var settings: [String: JSONValue] = milliseconds > 0 ? ["fixedDelay": .number(milliseconds)] : [:]
        if let fault = registry.connectionFault {
            settings["fault"] = .string(fault.kind.rawValue)
            settings["chance"] = .number(fault.chance)
        }
        return .json(200, ["settings": .object(settings)] as JSONValue)
    }

    /// `POST` (or `PUT`) `/__admin/settings` with `{"fixedDelay": ms}`: a delay before every response.
    func updateSettings(_ request: AdminRequest) throws -> AdminResponse {
        guard let value = try? JSONValue(parsing: request.body), case .object(var fields) = value else {
            throw AdminFailure(400, #"the request body is not a JSON object; expected {"fixedDelay": milliseconds}"#, field: "body")
        }
        // WireMock's client sends the settings bare; WireMock 3's `PUT` nests them.
        if case .object(let nested)? = fields["settings"] { fields = nested }
        try updateConnectionFault(fields)
        for (key, setting) in fields.sorted(by: { $0.key < $1.key }) where key != "fault" && key != "chance" {
            switch (key, setting) {
            case ("fixedDelay", .number(let milliseconds)) where milliseconds >= 0 && milliseconds <= 86_400_000:
                registry.globalDelay = .milliseconds(milliseconds)
            case ("fixedDelay", .null):
                registry.globalDelay = .zero
            case ("fixedDelay", _):
                throw AdminFailure(400, "fixedDelay: expected milliseconds, a number from 0 to 86400000", field: "fixedDelay")
            case ("extended", .object), ("extended", .null), ("delayDistribution", .null), ("proxyPassThrough", .bool(true)):
                continue
            default:
                throw AdminFailure(400, "\(key): unsupported setting; supported: fixedDelay, fault, chance", field: key)
            }
        }
        return .json(200, [:] as JSONValue)
    }

    /// `fault` (`disconnect-at-start`, `stall-at-start`, or `null` for none) and `chance` (from 0
    /// to 1, 1 when left out) of a settings body, checked before anything is changed.
    private func updateConnectionFault(_ fields: [String: JSONValue]) throws {
        let names = ConnectionFault.Kind.allCases.map(\.rawValue).joined(separator: ", ")
        var chance = 1.0
        switch fields["chance"] {
        case nil: break
        case .number(let value)? where (0...1).contains(value): chance = value
        default: throw AdminFailure(400, "chance: expected a share from 0 to 1", field: "chance")
        }
        switch fields["fault"] {
        case nil:
            if fields["chance"] != nil { throw AdminFailure(400, "chance: needs a fault beside it (\(names))", field: "chance") }
        case .null?:
            registry.connectionFault = nil
        case .string(let name)?:
            guard let kind = ConnectionFault.Kind(rawValue: name) else {
                throw AdminFailure(400, "fault: unknown connection fault '\(name)'; expected one of \(names), or null", field: "fault")
            }
            registry.connectionFault = ConnectionFault(kind, chance: chance)
        default:
            throw AdminFailure(400, "fault: expected one of \(names), or null", field: "fault")
        }
    }

    // MARK: - Helpers

    /// The serve events of `interactions`, each with its stub's mapping.
    func events(_ interactions: [Interaction]) -> [ServeEvent] {
        var mappings: [String: JSONValue] = [:]
        let answering = Set(interactions.compactMap(\.stubName))
        if !answering.isEmpty {
            let uses = registry.useCounts
            for stub in registry.stubs where answering.contains(stub.name) {
                mappings[stub.name] = mappingJSON(of: stub, uses: uses)
            }
        }
        return interactions.map { interaction in
            ServeEvent(interaction, stubMapping: interaction.stubName.map { mappings[$0] ?? ["name": .string($0)] })
        }
    }

    private func nearMiss(request: JSONValue, stubNamed name: String, distance: Double, uses: [String: Int]) -> JSONValue {
        let stub = registry.stubs.first { $0.name == name }
        return [
            "request": request, "stubMapping": stub.map { mappingJSON(of: $0, uses: uses) } ?? ["name": .string(name)],
            "matchResult": ["distance": .number(distance)],
        ]
    }

    /// A request pattern: Understudy's `{"request": {...}}` (stub-file schema) when the body is
    /// exactly that, else WireMock's bare pattern (`{"method": "GET", "urlPath": "/a"}`).
    func requestPattern(_ request: AdminRequest) throws -> RequestMatcher {
        let (text, format) = try document(of: request, expected: #"a WireMock request pattern such as {"method": "GET", "url": "/a.png"}"#)
        do {
            if case .object(let fields)? = try? JSONValue(parsing: request.body), fields.count == 1, fields["request"] != nil {
                return try StubFileLoader.requestMatcher(parsing: text, format: format, named: Self.documentName)
            }
            if format == .yaml {
                return try StubFileLoader.requestMatcher(parsing: text, format: format, named: Self.documentName)
            }
            return try WireMockLoader.requestPattern(parsing: text)
        } catch let error as StubFileError {
            throw AdminFailure.badDocument(error)
        }
    }

    /// The request a WireMock `LoggedRequest` describes: `url` or `absoluteUrl`, `method`,
    /// `headers`, `body` or `bodyAsBase64`.
    private func loggedRequest(_ fields: [String: JSONValue]) throws -> StubRequest {
        func text(_ key: String) -> String? {
            if case .string(let value)? = fields[key] { return value }
            return nil
        }
        var headers = HeaderFields()
        if case .object(let given)? = fields["headers"] {
            for (name, value) in given.sorted(by: { $0.key < $1.key }) {
                switch value {
                case .string(let single): headers.add(name: name, value: single)
                case .array(let values): for case .string(let one) in values { headers.add(name: name, value: one) }
                default: throw AdminFailure(400, "headers.\(name): expected a string or an array of strings", field: "headers.\(name)")
                }
            }
        }
        let body = text("bodyAsBase64").flatMap { Data(base64Encoded: $0) } ?? text("body").map { Data($0.utf8) }
        let address = text("absoluteUrl") ?? text("url").map { "http://localhost" + ($0.hasPrefix("/") ? $0 : "/" + $0) }
        guard let address, let request = StubRequest(method: text("method") ?? "GET", address, headers: headers, body: body) else {
            throw AdminFailure(400, "expected a request with a 'url' (path and query) or an 'absoluteUrl'", field: "url")
        }
        return request
    }

    static func parseDate(_ text: String) -> Date? {
        if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) { return date }
        return try? Date.ISO8601FormatStyle().parse(text)
    }
}

extension ServeEvent {
    /// WireMock's `LoggedRequest`: the event's `request` alone.
    var loggedRequest: JSONValue {
        if case .object(let members) = json, let request = members["request"] { return request }
        return .null
    }
}
