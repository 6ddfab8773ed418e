import Foundation
internal import Yams

/// A stub read from a file, kept even when invalid so that duplicate names can be reported.
struct ParsedStub {
    /// The stub, or `nil` when the file reported issues about it.
    let stub: Stub?
    let name: String
    let hasExplicitName: Bool
    /// Where the stub (or its name) is, for duplicate-name messages.
    let line: Int
    let path: String
    /// The `id` (or `uuid`) a WireMock mapping gives, which must be its own.
    var givenID: UUID? = nil
}

/// Walks one composed stub document and turns it into stubs, collecting every issue on the way
/// instead of stopping at the first.
///
/// Paths are strings like `stubs[2].response.fault`; the empty path is the document itself.
struct StubFileParser: DocumentParser {
    /// The file as issues name it.
    let file: String
    /// The file's name without its extension: the prefix of default stub names.
    let defaultNamePrefix: String
    /// How `file:` values resolve; `nil` refuses them (stubs not read from a directory).
    let references: FileReferences?
    var issues: [StubFileError.Issue] = []
    /// The document's `tls:` rules, in order (``parseDocument(_:allowsSingleStub:allowsTLS:)``).
    var tlsRules: [TLSRule] = []

    init(file: String, defaultNamePrefix: String, references: FileReferences?) {
        self.file = file
        self.defaultNamePrefix = defaultNamePrefix
        self.references = references
    }

    static let stubKeys = ["name", "priority", "times", "scenario", "request", "response", "responses"]
    static let scenarioKeys = ["name", "when", "then"]

    // MARK: - Documents

    /// The stubs of a document whose top level is `{stubs: [...]}`; with `allowsSingleStub`,
    /// a document that is one stub's mapping is accepted too. With `allowsTLS`, a `tls:` list
    /// may stand beside (or instead of) `stubs:`; its rules go to ``tlsRules``.
    mutating func parseDocument(_ root: Node?, allowsSingleStub: Bool = false, allowsTLS: Bool = false) -> [ParsedStub] {
        guard let root else {
            report(line: 1, path: "", "the document is empty; expected a mapping with a 'stubs' list")
            return []
        }
        guard case .mapping(let mapping) = root else {
            report(root, "", "found \(root.found) at the top level; expected a mapping with a 'stubs' list")
            return []
        }
        if allowsSingleStub, mapping["stubs"] == nil {
            return [parseStub(root, path: "", index: 0)]
        }
        guard let fields = entries(root, "", allowed: allowsTLS ? ["stubs", "tls"] : ["stubs"]) else { return [] }
        if let tls = fields.first(where: { $0.key == "tls" }) {
            parseTLS(tls.value, path: "tls")
        }
        guard let stubs = fields.first(where: { $0.key == "stubs" }) else {
            if !fields.contains(where: { $0.key == "tls" }) {
                report(root, "", "missing key 'stubs'; expected a mapping with a 'stubs' list")
            }
            return []
        }
        guard case .sequence(let items) = stubs.value else {
            reportMismatch(stubs.value, "stubs", expected: "a list of stubs")
            return []
        }
        guard !items.isEmpty else {
            report(stubs.value, "stubs", "the list is empty; expected at least one stub")
            return []
        }
        return items.enumerated().map { index, item in
            parseStub(item, path: "stubs[\(index)]", index: index)
        }
    }

    /// A document that is `{request: {...}}`: the matcher on its own (admin API counts).
    mutating func parseMatcherDocument(_ root: Node?) -> RequestMatcher? {
        guard let root else {
            report(line: 1, path: "", "the document is empty; expected a mapping with a 'request' key")
            return nil
        }
        guard let fields = entries(root, "", allowed: ["request"], expected: "a mapping with a 'request' key") else {
            return nil
        }
        guard let request = fields.first else {
            report(root, "", "missing key 'request'; expected a mapping with a 'request' key")
            return nil
        }
        return parseRequest(request.value, path: "request")
    }

    // MARK: - Stubs

    mutating func parseStub(_ node: Node, path: String, index: Int) -> ParsedStub {
        let issuesBefore = issues.count
        var name: String?
        var nameLine = node.line
        var priority = 0
        var times: Int?
        var matcher = RequestMatcher.any
        var response: (key: Node, value: Node)?
        var responses: (key: Node, value: Node)?
        var scenario: Scenario?

        let fields = entries(node, path, allowed: Self.stubKeys, expected: "a stub mapping") ?? []
        for field in fields {
            let fieldPath = join(path, field.key)
            switch field.key {
            case "name":
                if let given = stubName(field.value, fieldPath) { (name, nameLine) = given }
            case "priority":
                priority = integer(field.value, fieldPath) ?? 0
            case "times":
                times = integer(field.value, fieldPath, expected: "an integer >= 1", minimum: 1)
            case "request":
                matcher = parseRequest(field.value, path: fieldPath) ?? .any
            case "response":
                response = (field.keyNode, field.value)
            case "responses":
                responses = (field.keyNode, field.value)
            case "scenario":
                scenario = parseScenario(field.value, path: fieldPath)
            default:
                preconditionFailure("key '\(field.key)' is allowed but not handled")
            }
        }

        var answer: Stub.Answer?
        switch (response, responses) {
        case (.some, .some(let second)):
            report(second.key, path, "has both 'response' and 'responses'; expected one of them")
        case (.some(let single), nil):
            answer = parseResponse(single.value, path: join(path, "response")).map(Stub.Answer.response)
        case (nil, .some(let list)):
            answer = parseResponseList(list.value, path: join(path, "responses"))
        case (nil, nil):
            // A stub that only matches answers an empty 200: handy for counting requests.
            answer = .response(.status(200))
        }

        let chosenName = name ?? "\(defaultNamePrefix)-\(index + 1)"
        var stub: Stub?
        if issues.count == issuesBefore, let answer {
            stub = Stub(named: chosenName, matching: matcher, priority: priority, times: times, answer: answer)
            stub?.scenario = scenario
        }
        return ParsedStub(stub: stub, name: chosenName, hasExplicitName: name != nil, line: nameLine, path: path)
    }

    /// `scenario: {name: cart, when: Started, then: filled}` (`when` and `then` optional).
    private mutating func parseScenario(_ node: Node, path: String) -> Scenario? {
        let issuesBefore = issues.count
        var values: [String: String] = [:]
        for field in entries(node, path, allowed: Self.scenarioKeys, expected: "a scenario such as {name: cart, when: Started, then: filled}") ?? [] {
            if let text = string(field.value, join(path, field.key)) { values[field.key] = text }
        }
        guard issues.count == issuesBefore else { return nil }
        guard let name = values["name"] else {
            report(node, path, "missing key 'name'; expected the scenario's name, with 'when' (the state it must be in) and 'then' (the state to move to)")
            return nil
        }
        return Scenario(name, requiredState: values["when"], newState: values["then"])
    }

    private mutating func parseResponseList(_ node: Node, path: String) -> Stub.Answer? {
        guard case .sequence(let items) = node else {
            reportMismatch(node, path, expected: "a list of responses")
            return nil
        }
        guard !items.isEmpty else {
            report(node, path, "the list is empty; expected at least one response")
            return nil
        }
        let parsed = items.enumerated().map { index, item in
            parseResponse(item, path: "\(path)[\(index)]")
        }
        let responses = parsed.compactMap { $0 }
        return responses.count == parsed.count ? .sequence(responses) : nil
    }

    // MARK: - Reading nodes by YAML's tags

    static func kind(of node: Node) -> NodeKind { node.kind }

    static func found(_ kind: NodeKind, _ text: String) -> String {
        switch kind {
        case .mapping: "a mapping"
        case .list: "a list"
        case .null: "null"
        case .bool: "boolean \(text)"
        case .int: "integer \(text)"
        case .float: "number \(text)"
        case .string: "string '\(text)'"
        }
    }

    static func integerValue(of node: Node) -> Int? { node.int }

    static func numberValue(of node: Node) -> Double? { node.float ?? node.scalar.flatMap { Double($0.string) } }

    // MARK: - Typed values

    /// A mapping's entries with their string keys, in document order; unknown keys are
    /// reported and left out. `nil` (reported) when `node` is not a mapping.
    mutating func entries(
        _ node: Node, _ path: String, allowed: [String]?, expected: String = "a mapping"
    ) -> [Entry]? {
        pairs(node, path, expected: expected)?.compactMap { keyNode, value in
            guard case .scalar(let scalar) = keyNode else {
                report(keyNode, path, "found \(keyNode.found) as a key; expected a string")
                return nil
            }
            if let allowed, !allowed.contains(scalar.string) {
                report(keyNode, join(path, scalar.string),
                       "unknown key '\(scalar.string)'; expected one of \(allowed.joined(separator: ", "))")
                return nil
            }
            return (scalar.string, keyNode, value)
        }
    }

    /// A mapping with exactly one of `allowed` as its key, e.g. `{contains: text}`.
    mutating func singleEntry(
        _ node: Node, _ path: String, allowed: [String], expected: String
    ) -> Entry? {
        let countBefore = issues.count
        guard let fields = entries(node, path, allowed: allowed, expected: expected) else { return nil }
        guard fields.count == 1 else {
            if issues.count == countBefore {
                reportNotExactlyOne(node, path, keys: fields.map(\.key), none: "no key", expected: allowed.joined(separator: ", "))
            }
            return nil
        }
        return fields[0]
    }

    /// A scalar's text. Numbers and booleans are taken as written (`X-Version: 2`).
    mutating func string(_ node: Node, _ path: String, expected: String = "a string") -> String? {
        switch node.kind {
        case .string, .int, .float, .bool:
            return node.scalar?.string
        case .null, .mapping, .list:
            reportMismatch(node, path, expected: expected)
            return nil
        }
    }

    /// A string, or a list of strings (at least one).
    mutating func strings(_ node: Node, _ path: String, expected: String) -> [String]? {
        guard case .sequence(let items) = node else {
            return string(node, path, expected: expected).map { [$0] }
        }
        guard !items.isEmpty else {
            report(node, path, "the list is empty; expected \(expected)")
            return nil
        }
        let values = items.enumerated().map { index, item in
            string(item, "\(path)[\(index)]", expected: "a string")
        }
        let found = values.compactMap { $0 }
        return found.count == values.count ? found : nil
    }

    /// Any node as JSON: mappings become objects, lists arrays, scalars by their type.
    mutating func json(_ node: Node, _ path: String) -> JSONValue? {
        switch node.kind {
        case .mapping:
            guard let fields = entries(node, path, allowed: nil) else { return nil }
            var object: [String: JSONValue] = [:]
            var valid = true
            for field in fields {
                if let value = json(field.value, join(path, field.key)) {
                    object[field.key] = value
                } else {
                    valid = false
                }
            }
            return valid ? .object(object) : nil
        case .list:
            guard case .sequence(let items) = node else { return nil }
            let values = items.enumerated().map { index, item in json(item, "\(path)[\(index)]") }
            let found = values.compactMap { $0 }
            return found.count == values.count ? .array(found) : nil
        case .null:
            return .null
        case .bool:
            return node.bool.map(JSONValue.bool)
        case .int, .float:
            return number(node, path, expected: "a finite number").map(JSONValue.number)
        case .string:
            return node.scalar.map { .string($0.string) }
        }
    }
}
