internal import Yams

/// What the stub-file and WireMock parsers share: issues that name the file, line and path, and
/// the readers of integers and numbers, whose messages say what was expected and what was found.
///
/// The two formats differ only in how a node reads (YAML's tags in a stub file, JSON's rules in
/// a WireMock mapping) and in the words for what was found (`a mapping` or `an object`,
/// `integer 5` or `number 5`); each parser gives those, and the messages are written here once.
protocol DocumentParser {
    /// The file as issues name it.
    var file: String { get }
    /// Every issue found so far, in the order found.
    var issues: [StubFileError.Issue] { get set }

    /// The node's shape by this format's rules.
    static func kind(of node: Node) -> NodeKind
    /// How messages name a node of `kind` written `text`: `integer 5`, `string 'abc'`.
    static func found(_ kind: NodeKind, _ text: String) -> String
    /// The value of a node of kind `.int`, by this format's rules.
    static func integerValue(of node: Node) -> Int?
    /// The value of a node of kind `.int` or `.float`, by this format's rules.
    static func numberValue(of node: Node) -> Double?
    /// A scalar's text, as this format takes strings; `nil` (reported) when it is none.
    mutating func string(_ node: Node, _ path: String, expected: String) -> String?
}

extension DocumentParser {
    /// One entry of a mapping: its key's text, the key's node (for its line) and the value.
    typealias Entry = (key: String, keyNode: Node, value: Node)

    /// Records an issue at `node`'s line; parsing goes on, so one run reports every issue.
    mutating func report(_ node: Node, _ path: String, _ message: String) {
        report(line: node.line, path: path, message)
    }

    /// Records an issue at `line`; the empty path (the document itself) prints as none.
    mutating func report(line: Int, path: String, _ message: String) {
        issues.append(StubFileError.Issue(file: file, line: line, path: path.isEmpty ? nil : path, message: message))
    }

    /// `path.key`, or `key` at the document's top.
    func join(_ path: String, _ key: String) -> String {
        path.isEmpty ? key : path + "." + key
    }

    /// How messages name `node`: `a mapping`, `integer 5`, `string 'abc'` in a stub file.
    static func found(_ node: Node) -> String {
        found(kind(of: node), node.scalar?.string ?? "")
    }

    /// Reports `expected <expected>, found <what node is>`.
    mutating func reportMismatch(_ node: Node, _ path: String, expected: String) {
        report(node, path, "expected \(expected), found \(Self.found(node))")
    }

    /// A mapping's key and value nodes in document order; `nil` (reported) when `node` is not a
    /// mapping.
    mutating func pairs(_ node: Node, _ path: String, expected: String) -> [(key: Node, value: Node)]? {
        guard case .mapping(let mapping) = node else {
            reportMismatch(node, path, expected: expected)
            return nil
        }
        return mapping.map { ($0.key, $0.value) }
    }

    /// Reports a mapping that holds `keys` where it takes exactly one of `expected`: `found no
    /// key; expected exactly one of ...` (`none` says what is missing), `found 'a' and 'b'; ...`.
    mutating func reportNotExactlyOne(_ node: Node, _ path: String, keys: [String], none: String, expected: String) {
        let found = keys.isEmpty ? none : keys.map { "'\($0)'" }.joined(separator: " and ")
        report(node, path, "found \(found); expected exactly one of \(expected)")
    }

    /// A stub's `name`: a non-empty string, and the line it is on, which duplicate-name messages
    /// give. `nil` (reported) when it is not one.
    mutating func stubName(_ node: Node, _ path: String) -> (name: String, line: Int)? {
        guard let text = string(node, path, expected: "a string") else { return nil }
        guard !text.isEmpty else {
            report(node, path, "the name is empty; expected a non-empty string")
            return nil
        }
        return (text, node.line)
    }

    /// An integer written as one (not a quoted string), at least `minimum` if given.
    mutating func integer(_ node: Node, _ path: String, expected: String = "an integer", minimum: Int? = nil) -> Int? {
        guard Self.kind(of: node) == .int, let value = Self.integerValue(of: node) else {
            reportMismatch(node, path, expected: expected)
            return nil
        }
        if let minimum, value < minimum {
            report(node, path, "expected \(expected), found \(Self.found(.int, "\(value)"))")
            return nil
        }
        return value
    }

    /// A finite number, integer or not.
    mutating func number(_ node: Node, _ path: String, expected: String = "a number") -> Double? {
        switch Self.kind(of: node) {
        case .int, .float:
            if let value = Self.numberValue(of: node), value.isFinite { return value }
        case .mapping, .list, .null, .bool, .string:
            break
        }
        reportMismatch(node, path, expected: expected)
        return nil
    }
}
