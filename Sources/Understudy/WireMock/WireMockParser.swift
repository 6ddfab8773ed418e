import Foundation
internal import Yams

/// Walks one WireMock mapping file (one mapping, or `{"mappings": [...]}`) and turns each
/// mapping into a ``Stub``, collecting every issue instead of stopping at the first.
///
/// Paths in issues are JSON paths like `mappings[2].request.cookies`; for a file of one
/// mapping they start at the mapping (`request.cookies`).
struct WireMockParser: DocumentParser {
    /// The file as issues name it.
    let file: String
    /// The file's name without `.json`: the prefix of default stub names.
    let defaultNamePrefix: String
    /// How `bodyFileName` values resolve: inside the directory's `__files/`.
    let bodyFiles: FileReferences?
    /// Whether every response is a template (`--global-response-templating`), not only those
    /// whose `transformers` name `response-template`.
    let templatesEveryResponse: Bool
    /// Whether the mappings come from the root's `mappings/` (else from the admin API).
    let fromFiles: Bool
    var issues: [StubFileError.Issue] = []
    /// The `urlPathTemplate` of the mapping being read, whose parameters its response's
    /// templates may read (`{{request.path.id}}`), whichever of `request` and `response` comes first.
    var pathTemplate: PathTemplate?

    init(file: String, defaultNamePrefix: String, bodyFiles: FileReferences?, templatesEveryResponse: Bool = false, fromFiles: Bool = true) {
        self.file = file
        self.defaultNamePrefix = defaultNamePrefix
        self.bodyFiles = bodyFiles
        self.templatesEveryResponse = templatesEveryResponse
        self.fromFiles = fromFiles
    }

    static let mappingFields = [
        "id", "uuid", "name", "priority", "request", "response", "scenarioName", "requiredScenarioState", "newScenarioState",
        "persistent", "insertionIndex", "metadata",
    ]

    /// WireMock's priority when a mapping gives none; it maps to Understudy's default, 0.
    static let defaultPriority = 5

    // MARK: - Documents

    mutating func parseDocument(_ root: Node?) -> [ParsedStub] {
        guard let root else {
            report(line: 1, path: "", "the file is empty; expected a mapping object or {\"mappings\": [...]}")
            return []
        }
        guard case .mapping(let object) = root else {
            report(root, "", "found \(WireMockJSON.found(root)) at the top level; expected a mapping object or {\"mappings\": [...]}")
            return []
        }
        // WireMock reads a file as a list when it has a `mappings` field, else as one mapping.
        guard object["mappings"] != nil else {
            return [parseMapping(root, path: "", index: 0)]
        }
        guard let fields = fields(root, "", supported: ["mappings"], expected: "{\"mappings\": [...]}"),
              let list = fields.first?.value
        else { return [] }
        guard case .sequence(let items) = list else {
            reportMismatch(list, "mappings", expected: "an array of mappings")
            return []
        }
        return items.enumerated().map { index, item in
            parseMapping(item, path: "mappings[\(index)]", index: index)
        }
    }

    // MARK: - Mappings

    mutating func parseMapping(_ node: Node, path: String, index: Int) -> ParsedStub {
        let issuesBefore = issues.count
        var name: String?
        var identifier: (value: String, key: String, node: Node)?
        var nameLine = node.line
        var priority = 0
        var matcher = RequestMatcher.any
        var answer: Stub.Answer?
        var hasResponse = false
        var scenarioName: String?
        var requiredState: String?
        var newState: String?
        var persistent = false
        pathTemplate = nil
        if case .mapping(let object) = node, case .mapping(let request)? = object["request"],
           let text = request["urlPathTemplate"]?.scalar?.string {
            // Reported, if it does not parse, where `request` is read.
            pathTemplate = try? PathTemplate(text)
        }

        for field in fields(node, path, supported: Self.mappingFields, expected: "a mapping object") ?? [] {
            let fieldPath = join(path, field.key)
            switch field.key {
            case "name":
                if let given = stubName(field.value, fieldPath) { (name, nameLine) = given }
            case "id", "uuid":
                guard let text = string(field.value, fieldPath, expected: "a UUID") else { continue }
                guard UUID(uuidString: text) != nil else {
                    report(field.value, fieldPath, "'\(text)' is not a UUID; expected one like 8c5db8b0-2db4-4ad7-a99f-38c9b00da3f7")
                    continue
                }
                if let other = identifier, other.value.lowercased() != text.lowercased() {
                    report(field.value, fieldPath, "differs from '\(other.key)' (\(other.value)); expected the same UUID in both or only one of them")
                    continue
                }
                if identifier == nil {
                    identifier = (text, field.key, field.value)
                }
            case "priority":
                if let value = integer(field.value, fieldPath, expected: "an integer (1 is the highest)") {
                    guard (-1_000_000_000...1_000_000_000).contains(value) else {
                        report(field.value, fieldPath, "priority \(value) is out of range; expected an integer from -1000000000 to 1000000000")
                        continue
                    }
                    priority = Self.defaultPriority - value
                }
            case "request":
                matcher = parseRequest(field.value, path: fieldPath) ?? .any
            case "response":
                hasResponse = true
                answer = parseResponse(field.value, path: fieldPath)
            case "scenarioName":
                scenarioName = string(field.value, fieldPath, expected: "a scenario name")
            case "requiredScenarioState":
                requiredState = string(field.value, fieldPath, expected: "a scenario state")
            case "newScenarioState":
                newState = string(field.value, fieldPath, expected: "a scenario state")
            case "persistent":
                persistent = bool(field.value, fieldPath) ?? false
            case "insertionIndex":
                // WireMock's own order of insertion, saved with its files; files keep theirs by name.
                _ = integer(field.value, fieldPath, expected: "an integer")
            case "metadata":
                _ = fields(field.value, fieldPath, supported: nil, expected: "an object")
            default:
                preconditionFailure("field '\(field.key)' is supported but not handled")
            }
        }
        if !hasResponse, issues.count == issuesBefore {
            // WireMock answers 200 with no body when a mapping has no response.
            answer = .response(Self.bare(.status(200)))
        }

        let chosenName = name ?? identifier?.value ?? "\(defaultNamePrefix)-\(index + 1)"
        if name == nil, let identifier { nameLine = identifier.node.line }
        if scenarioName == nil, requiredState != nil || newState != nil, issues.count == issuesBefore {
            report(node, path, "'requiredScenarioState' or 'newScenarioState' without 'scenarioName'; expected a scenarioName for the scenario they belong to")
        }
        var stub: Stub?
        if issues.count == issuesBefore, let answer {
            stub = Stub(named: chosenName, matching: matcher, priority: priority, answer: answer)
            if let scenarioName {
                stub?.scenario = Scenario(scenarioName, requiredState: requiredState, newState: newState)
            }
            let id = identifier.flatMap { UUID(uuidString: $0.value) } ?? UUID()
            var json = WireMockJSON.value(node) ?? .object([:])
            if case .object(var members) = json {
                // WireMock writes its id twice, as `id` and `uuid`; so do we.
                members["id"] = .string(id.uuidString.lowercased())
                members["uuid"] = .string(id.uuidString.lowercased())
                json = .object(members)
            }
            stub?.wireMock = WireMockMapping(id: id, json: json, persistent: persistent, fromFile: fromFiles)
        }
        return ParsedStub(
            stub: stub, name: chosenName, hasExplicitName: name != nil || identifier != nil, line: nameLine, path: path,
            givenID: identifier.flatMap { UUID(uuidString: $0.value) }
        )
    }

    /// A response without the Content-Type Understudy would infer: WireMock sends none unless
    /// the mapping's headers give one.
    static func bare(_ response: StubResponse) -> StubResponse {
        response.withoutInferredContentType()
    }

    // MARK: - Reading nodes by JSON's rules

    static func kind(of node: Node) -> NodeKind { WireMockJSON.kind(of: node) }

    static func found(_ kind: NodeKind, _ text: String) -> String { WireMockJSON.found(kind, text) }

    static func integerValue(of node: Node) -> Int? { node.scalar.flatMap { Int($0.string) } }

    static func numberValue(of node: Node) -> Double? { node.scalar.flatMap { Double($0.string) } }

    // MARK: - Typed values

    /// An object's fields in file order; each field not in `supported` is reported as
    /// unsupported, naming what is, and left out. `nil` (reported) when `node` is not an object.
    mutating func fields(
        _ node: Node, _ path: String, supported: [String]?, expected: String = "an object"
    ) -> [Entry]? {
        pairs(node, path, expected: expected)?.compactMap { keyNode, value in
            let key = keyNode.scalar?.string ?? ""
            if let supported, !supported.contains(key) {
                report(keyNode, join(path, key), "unsupported field; supported: \(supported.joined(separator: ", "))")
                return nil
            }
            return (key, keyNode, value)
        }
    }

    mutating func string(_ node: Node, _ path: String, expected: String = "a string") -> String? {
        guard WireMockJSON.kind(of: node) == .string, let text = node.scalar?.string else {
            reportMismatch(node, path, expected: expected)
            return nil
        }
        return text
    }

    mutating func bool(_ node: Node, _ path: String) -> Bool? {
        guard WireMockJSON.kind(of: node) == .bool, let text = node.scalar?.string else {
            reportMismatch(node, path, expected: "true or false")
            return nil
        }
        return text == "true"
    }
}
