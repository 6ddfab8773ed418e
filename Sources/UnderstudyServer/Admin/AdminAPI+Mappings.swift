import Foundation
import Understudy

extension AdminAPI {
    /// The WireMock root mappings are read from, saved to and resolve `bodyFileName` in: the
    /// first WireMock directory the registry loaded.
    var wireMockRoot: (url: URL, templatesEveryResponse: Bool)? {
        registry.wireMockRoots.first
    }

    /// A stub as WireMock's admin API shows it: its mapping as given (with its `id`), or, for a
    /// stub that is not a WireMock mapping, its `id`, `name`, its `request` when WireMock can
    /// express the matcher, its scenario, and what Understudy knows of it under
    /// `metadata.understudy` (the matcher in words, priority, uses).
    func mappingJSON(of stub: Stub, uses: [String: Int]) -> JSONValue {
        if let mapping = stub.wireMock { return mapping.json }
        var json: [String: JSONValue] = [
            "id": .string(stub.wireMockID.uuidString.lowercased()),
            "name": .string(stub.name),
            "metadata": ["understudy": [
                "matcher": .string(stub.matcher.description), "priority": .number(Double(stub.priority)),
                "uses": .number(Double(uses[stub.name] ?? 0)),
            ]],
        ]
        if let request = stub.matcher.wireMockRequest { json["request"] = request }
        if let scenario = stub.scenario {
            json["scenarioName"] = .string(scenario.name)
            json["requiredScenarioState"] = scenario.requiredState.map(JSONValue.string)
            json["newScenarioState"] = scenario.newState.map(JSONValue.string)
        }
        return .object(json)
    }

    /// `GET /__admin/mappings`: `{"mappings": [...], "meta": {"total": N}}`, precedence order.
    func listMappings(_ request: AdminRequest) throws -> AdminResponse {
        let offset = try count(request, "offset") ?? 0
        let limit = try count(request, "limit")
        let stubs = registry.stubs
        let uses = registry.useCounts
        let page = stubs.dropFirst(offset).prefix(limit ?? Int.max).map { mappingJSON(of: $0, uses: uses) }
        return .json(200, ["mappings": .array(Array(page)), "meta": ["total": .number(Double(stubs.count))]] as JSONValue)
    }

    /// `POST /__admin/mappings`: one mapping, read by the `--wiremock` files' parser; 201 with it.
    func createMapping(_ request: AdminRequest) throws -> AdminResponse {
        let stub = try parseMapping(request)
        try add([stub])
        return .json(201, mappingJSON(of: stub, uses: [:]))
    }

    /// `GET /__admin/mappings/{id}`.
    func showMapping(_ id: String) throws -> AdminResponse {
        let stub = try stub(withMappingID: id)
        return .json(200, mappingJSON(of: stub, uses: registry.useCounts))
    }

    /// `PUT /__admin/mappings/{id}`: the mapping replaced by the body, keeping its id.
    func updateMapping(_ id: String, _ request: AdminRequest) throws -> AdminResponse {
        let old = try stub(withMappingID: id)
        var stub = try parseMapping(request, id: old.wireMockID)
        if case .object(let members)? = stub.wireMock?.json, members["name"] == nil, old.wireMock == nil {
            stub.name = old.name
        }
        // The id is the identity: a mapping sharing the old one's name is another mapping.
        registry.replace(removing: { $0.wireMockID == old.wireMockID }, adding: [stub])
        try persistIfAsked([stub])
        return .json(200, mappingJSON(of: stub, uses: [:]))
    }

    /// `DELETE /__admin/mappings/{id}`.
    func deleteMapping(_ id: String) throws -> AdminResponse {
        let stub = try stub(withMappingID: id)
        registry.removeStub(named: stub.name)
        return .json(200, [:] as JSONValue)
    }

    /// `DELETE /__admin/mappings`: every stub, mapping or not (one registry).
    func deleteAllMappings() -> AdminResponse {
        registry.removeAllStubs()
        return .json(200, [:] as JSONValue)
    }

    /// `POST /__admin/mappings/reset`: the API's stubs dropped, the root's files read again
    /// (files copied in since load); the journal is kept, scenarios start again.
    func resetMappings() throws -> AdminResponse {
        do {
            try registry.reload(clearingJournal: false)
        } catch let error as StubFileError {
            var failure = AdminFailure(500, "cannot reset the mappings, nothing changed: the mapping files have issues:\n\(error)")
            failure.body.issues = error.issues.map(\.description)
            throw failure
        }
        return .json(200, [:] as JSONValue)
    }

    /// `POST /__admin/mappings/save`: the mappings posted to the API written as files under the
    /// root's `mappings/`, which WireMock and Understudy load.
    func saveMappings() throws -> AdminResponse {
        let posted = registry.stubs.filter { $0.wireMock.map { !$0.fromFile } ?? false }
        try save(posted)
        return .json(200, [:] as JSONValue)
    }

    /// `POST /__admin/mappings/import`: `{"mappings": [...], "importOptions": {...}}`, all or none.
    func importMappings(_ request: AdminRequest) throws -> AdminResponse {
        guard let value = try? JSONValue(parsing: request.body), case .object(var members) = value else {
            throw AdminFailure(400, #"the request body is not a JSON object; expected {"mappings": [...]}"#, field: "body")
        }
        var duplicatePolicy = "OVERWRITE", deleteAllNotInImport = false
        if let options = members.removeValue(forKey: "importOptions") {
            guard case .object(let fields) = options else {
                throw AdminFailure(400, "importOptions: expected an object with duplicatePolicy and deleteAllNotInImport", field: "importOptions")
            }
            for (key, option) in fields {
                switch (key, option) {
                case ("duplicatePolicy", .string(let policy)) where ["OVERWRITE", "IGNORE"].contains(policy): duplicatePolicy = policy
                case ("deleteAllNotInImport", .bool(let flag)): deleteAllNotInImport = flag
                default:
                    throw AdminFailure(400, "importOptions.\(key): unsupported; supported: duplicatePolicy (OVERWRITE or IGNORE), deleteAllNotInImport (true or false)", field: "importOptions.\(key)")
                }
            }
        }
        guard members["mappings"] != nil else {
            throw AdminFailure(400, #"missing field 'mappings'; expected {"mappings": [...]}"#, field: "mappings")
        }
        let text = String(decoding: JSONValue.object(members).encoded, as: UTF8.self)
        var stubs: [Stub]
        do {
            stubs = try WireMockLoader.mappings(parsing: text, root: wireMockRoot?.url, templatesEveryResponse: wireMockRoot?.templatesEveryResponse ?? false)
        } catch let error as StubFileError {
            throw AdminFailure.badDocument(error)
        }
        let existing = registry.stubs
        if duplicatePolicy == "IGNORE" {
            // WireMock's IGNORE keeps the mapping of an id already known; names are labels.
            let ids = Set(existing.map(\.wireMockID))
            stubs.removeAll { ids.contains($0.wireMockID) }
        }
        let ids = Set(stubs.map(\.wireMockID))
        registry.replace(removing: { deleteAllNotInImport || ids.contains($0.wireMockID) }, adding: stubs)
        try persistIfAsked(stubs)
        return .json(200, [:] as JSONValue)
    }

    // MARK: - Helpers

    /// The `id` (or `uuid`) of the mapping in the body, for WireMock 2's `mappings/edit` and
    /// `mappings/remove`, which name the mapping in the body rather than the path.
    func mappingID(in request: AdminRequest) throws -> String {
        guard let value = try? JSONValue(parsing: request.body), case .object(let fields) = value else {
            throw AdminFailure(400, #"the request body is not a JSON object; expected a mapping with its "id""#, field: "body")
        }
        for key in ["id", "uuid"] {
            if case .string(let id)? = fields[key] { return id }
        }
        throw AdminFailure(400, "missing field 'id'; expected the id of the mapping to change or remove", field: "id")
    }

    private func parseMapping(_ request: AdminRequest, id: UUID? = nil) throws -> Stub {
        let (text, _) = try document(of: request, expected: "a WireMock mapping")
        var stub: Stub
        do {
            stub = try WireMockLoader.mapping(parsing: text, root: wireMockRoot?.url, templatesEveryResponse: wireMockRoot?.templatesEveryResponse ?? false)
        } catch let error as StubFileError {
            throw AdminFailure.badDocument(error)
        }
        if let id, var mapping = stub.wireMock {
            let given = mapping.id
            mapping.id = id
            if case .object(var members) = mapping.json {
                members["id"] = .string(id.uuidString.lowercased())
                members["uuid"] = .string(id.uuidString.lowercased())
                mapping.json = .object(members)
            }
            if stub.name == given.uuidString.lowercased() { stub.name = id.uuidString.lowercased() }
            stub.wireMock = mapping
        }
        return stub
    }

    /// Adds posted stubs, each replacing the stub of its id (one of its name is kept beside it).
    private func add(_ stubs: [Stub]) throws {
        let ids = Set(stubs.map(\.wireMockID))
        registry.replace(removing: { ids.contains($0.wireMockID) }, adding: stubs)
        try persistIfAsked(stubs)
    }

    /// Writes the stubs posted with `persistent: true` at once, as WireMock does.
    private func persistIfAsked(_ stubs: [Stub]) throws {
        let persistent = stubs.filter { $0.wireMock?.persistent == true }
        if !persistent.isEmpty, wireMockRoot != nil { try save(persistent) }
    }

    private func save(_ stubs: [Stub]) throws {
        guard let root = wireMockRoot?.url else {
            throw AdminFailure(409, "there is no WireMock root to save mappings to; start the server with --root-dir DIR (or --wiremock DIR)", field: "root-dir")
        }
        let directory = root.appendingPathComponent("mappings", isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            for stub in stubs {
                guard let mapping = stub.wireMock else { continue }
                var json = mapping.json
                if case .object(var members) = json {
                    members["persistent"] = .bool(true)
                    json = .object(members)
                }
                let id = mapping.id.uuidString.lowercased()
                let file = directory.appendingPathComponent("saved-\(id).json")
                try encoder.encode(json).write(to: file, options: .atomic)
            }
        } catch {
            throw AdminFailure(500, "cannot write mappings under \(directory.path): \(error.localizedDescription)")
        }
    }

    private func stub(withMappingID id: String) throws -> Stub {
        guard let uuid = UUID(uuidString: id) else {
            throw AdminFailure(404, "no mapping with id '\(id)'; expected a UUID such as 8c5db8b0-2db4-4ad7-a99f-38c9b00da3f7", field: "id")
        }
        guard let stub = registry.stubs.first(where: { $0.wireMockID == uuid }) else {
            throw AdminFailure(404, "no mapping with id '\(id)'", field: "id")
        }
        return stub
    }
}
