import Foundation

/// A value a WireMock template works with: a field of the request model, a literal, what a
/// helper or `jsonPath` returns, the item of an `{{#each}}`.
///
/// Rendered and tested for truth as WireMock's Handlebars (Handlebars.java) does: nothing
/// renders as empty text; a whole number without a fraction; several values of one query
/// parameter or header as `[a, b]`; a JSON array compactly and a JSON object as Jackson's
/// pretty printer writes it. Empty text, `false`, `0`, an empty list or object and nothing at
/// all are false.
indirect enum TemplateValue: Sendable, Equatable {
    case missing
    case string(String)
    case number(Double)
    case bool(Bool)
    /// Several values of a query parameter or header (WireMock's `ListOrSingle`), or a JSON array.
    case list([TemplateValue], json: Bool)
    /// A JSON object, or the request's query parameters or headers by name.
    case map([String: TemplateValue], json: Bool)

    /// A JSON value as a template value (`null` is nothing).
    init(_ json: JSONValue) {
        switch json {
        case .null: self = .missing
        case .bool(let flag): self = .bool(flag)
        case .number(let number): self = .number(number)
        case .string(let text): self = .string(text)
        case .array(let items): self = .list(items.map(TemplateValue.init), json: true)
        case .object(let members): self = .map(members.mapValues(TemplateValue.init), json: true)
        }
    }

    /// Values of a query parameter or header: one as itself, several as a list, none as nothing.
    static func listOrSingle(_ values: [String]) -> TemplateValue {
        switch values.count {
        case 0: return .missing
        case 1: return .string(values[0])
        default: return .list(values.map(TemplateValue.string), json: false)
        }
    }

    /// Whether `{{#if}}` takes it as true.
    var isTruthy: Bool {
        switch self {
        case .missing: return false
        case .string(let text): return !text.isEmpty
        case .number(let number): return number != 0
        case .bool(let flag): return flag
        case .list(let items, _): return !items.isEmpty
        case .map(let members, _): return !members.isEmpty
        }
    }

    /// The text `{{x}}` writes (before HTML escaping).
    var text: String {
        switch self {
        case .missing: return ""
        case .string(let text): return text
        case .number(let number): return Self.text(of: number)
        case .bool(let flag): return String(flag)
        case .list(let items, json: false): return "[" + items.map(\.text).joined(separator: ", ") + "]"
        case .list, .map: return pretty(indent: 0, top: true)
        }
    }

    /// The item `.[n]` or member `.name` selects; nothing when there is none. A single value
    /// is its own item 0, as WireMock's `ListOrSingle` is.
    func member(_ key: String) -> TemplateValue {
        switch self {
        case .list(let items, _):
            guard let index = Int(key), items.indices.contains(index) else { return .missing }
            return items[index]
        case .map(let members, _):
            return members[key] ?? members.first { $0.key.caseInsensitiveCompare(key) == .orderedSame }?.value ?? .missing
        case .string where key == "0":
            return self
        default:
            return .missing
        }
    }

    /// The items `{{#each}}` walks: a list's items, a map's values in key order, nothing else.
    var items: [(key: String?, value: TemplateValue)] {
        switch self {
        case .list(let items, _): return items.map { (nil, $0) }
        case .map(let members, _): return members.keys.sorted().map { ($0, members[$0]!) }
        case .missing: return []
        default: return [(nil, self)]
        }
    }

    static func text(of number: Double) -> String {
        number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
    }

    /// A JSON array compactly (as Jayway's list prints), an object as Jackson's default pretty
    /// printer writes it (`{\n  "k" : 1\n}`), which is how WireMock's `jsonPath` renders them.
    private func pretty(indent: Int, top: Bool) -> String {
        switch self {
        case .list(let items, _):
            return "[" + items.map { $0.pretty(indent: indent, top: false) }.joined(separator: top ? "," : ", ") + "]"
        case .map(let members, _):
            guard !members.isEmpty else { return "{ }" }
            let inner = String(repeating: " ", count: indent + 2)
            let lines = members.keys.sorted().map { key in
                "\(inner)\(Self.quoted(key)) : \(members[key]!.pretty(indent: indent + 2, top: false))"
            }
            return "{\n" + lines.joined(separator: ",\n") + "\n" + String(repeating: " ", count: indent) + "}"
        case .string(let text): return top ? text : Self.quoted(text)
        case .missing: return "null"
        default: return text
        }
    }

    private static func quoted(_ text: String) -> String {
        String(decoding: JSONValue.string(text).encoded, as: UTF8.self)
    }
}
