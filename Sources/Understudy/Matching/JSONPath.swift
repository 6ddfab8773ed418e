import Foundation

/// A JSONPath expression as WireMock's `matchesJsonPath` and `{{jsonPath}}` read them (Jayway's
/// dialect): `$.a.b`, `$['a']`, `$.list[0]`, `$.list[-1]`, `$.list[1:3]`, `$.*`, `$..name`, and
/// filters `[?(@.size > 2 && @.type == 'png')]` with `==`, `!=`, `<`, `<=`, `>`, `>=`, `=~`
/// (a `/regex/` or `/regex/i`), `!`, `&&`, `||`, parentheses and `[?(@.field)]` for existence.
///
/// ```swift
/// let path = try JSONPath("$.images[?(@.width > 100)].id")
/// path.evaluate(json)   // the ids of the wide images
/// ```
public struct JSONPath: Sendable, Hashable, CustomStringConvertible {
    /// An expression that cannot be read, with where and why.
    public struct ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        /// What is wrong, quoting the expression.
        public let description: String
    }

    indirect enum Step: Sendable, Hashable {
        case name(String)
        case names([String])
        case index(Int)
        case indexes([Int])
        case slice(Int?, Int?)
        case wildcard
        case deep(Step)
        case filter(Filter)
    }

    indirect enum Filter: Sendable, Hashable {
        case exists(Operand)
        case compare(Operand, String, Operand)
        case not(Filter)
        case and(Filter, Filter)
        case or(Filter, Filter)
    }

    enum Operand: Sendable, Hashable {
        case current([Step])
        case root([Step])
        case literal(JSONValue)
        case regex(String, caseInsensitive: Bool)
    }

    /// The expression as written.
    public let text: String
    let steps: [Step]

    /// Whether it names at most one value (no wildcard, deep scan, filter, slice or list), so
    /// that its result is that value rather than a list of matches, as in Jayway.
    public var isDefinite: Bool {
        steps.allSatisfy { if case .name = $0 { true } else if case .index = $0 { true } else { false } }
    }

    /// Reads `text`.
    /// - Throws: ``ParseError`` naming the position and what was expected there.
    public init(_ text: String) throws(ParseError) {
        var reader = JSONPathReader(text: text)
        self.text = text
        self.steps = try reader.readPath()
    }

    /// The values the expression selects in `json`, in document order (objects in key order).
    public func evaluate(_ json: JSONValue) -> [JSONValue] {
        Self.apply(steps, to: [json], root: json)
    }

    /// The expression as written.
    public var description: String { text }

    // MARK: - Evaluating

    static func apply(_ steps: [Step], to start: [JSONValue], root: JSONValue) -> [JSONValue] {
        steps.reduce(start) { values, step in values.flatMap { select(step, in: $0, root: root) } }
    }

    private static func select(_ step: Step, in value: JSONValue, root: JSONValue) -> [JSONValue] {
        switch step {
        case .name(let name):
            if case .object(let members) = value, let member = members[name] { return [member] }
            return []
        case .names(let names):
            guard case .object(let members) = value else { return [] }
            return names.compactMap { members[$0] }
        case .index(let index):
            guard case .array(let items) = value else { return [] }
            let position = index < 0 ? items.count + index : index
            return items.indices.contains(position) ? [items[position]] : []
        case .indexes(let indexes):
            return indexes.flatMap { select(.index($0), in: value, root: root) }
        case .slice(let from, let to):
            guard case .array(let items) = value else { return [] }
            func clamp(_ bound: Int?, _ fallback: Int) -> Int {
                guard let bound else { return fallback }
                return min(max(bound < 0 ? items.count + bound : bound, 0), items.count)
            }
            let lower = clamp(from, 0), upper = clamp(to, items.count)
            return lower < upper ? Array(items[lower..<upper]) : []
        case .wildcard:
            return children(of: value)
        case .deep(let inner):
            var found = select(inner, in: value, root: root)
            for child in children(of: value) { found += select(step, in: child, root: root) }
            return found
        case .filter(let filter):
            return children(of: value).filter { passes(filter, $0, root: root) }
        }
    }

    private static func children(of value: JSONValue) -> [JSONValue] {
        switch value {
        case .array(let items): return items
        case .object(let members): return members.keys.sorted().compactMap { members[$0] }
        default: return []
        }
    }

    private static func passes(_ filter: Filter, _ current: JSONValue, root: JSONValue) -> Bool {
        switch filter {
        case .exists(let operand): return !resolve(operand, current, root).isEmpty
        case .not(let inner): return !passes(inner, current, root: root)
        case .and(let a, let b): return passes(a, current, root: root) && passes(b, current, root: root)
        case .or(let a, let b): return passes(a, current, root: root) || passes(b, current, root: root)
        case .compare(let left, let op, let right):
            guard let lhs = resolve(left, current, root).first else { return false }
            if op == "=~" {
                guard case .regex(let pattern, let caseInsensitive) = right, case .string(let text) = lhs,
                      let regex = try? NSRegularExpression(pattern: "\\A(?:" + pattern + ")\\z", options: caseInsensitive ? [.caseInsensitive] : [])
                else { return false }
                return regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
            }
            guard let rhs = resolve(right, current, root).first else { return op == "!=" }
            switch (op, lhs, rhs) {
            case ("==", _, _): return lhs == rhs
            case ("!=", _, _): return lhs != rhs
            case (_, .number(let a), .number(let b)): return compare(a, op, b)
            case (_, .string(let a), .string(let b)): return compare(a, op, b)
            default: return false
            }
        }
    }

    private static func compare<T: Comparable>(_ a: T, _ op: String, _ b: T) -> Bool {
        switch op {
        case "<": return a < b
        case "<=": return a <= b
        case ">": return a > b
        case ">=": return a >= b
        default: return false
        }
    }

    private static func resolve(_ operand: Operand, _ current: JSONValue, _ root: JSONValue) -> [JSONValue] {
        switch operand {
        case .current(let steps): return apply(steps, to: [current], root: root)
        case .root(let steps): return apply(steps, to: [root], root: root)
        case .literal(let value): return [value]
        case .regex: return []
        }
    }
}

extension JSONPath {
    /// WireMock's `matchesJsonPath` verdict on `json`: without a test, whether the path selects
    /// something (a definite path a value that is not null nor an empty array or object); with
    /// one, whether what it selects, as ``text(of:)`` writes it, passes (nothing selected passes
    /// only `absent` and `doesNotMatch`).
    func passes(_ test: RequestMatcher.HeaderTest?, in json: JSONValue) -> Bool {
        let found = evaluate(json)
        guard let test else {
            guard isDefinite else { return !found.isEmpty }
            switch found.first {
            case nil, .null?: return false
            case .array(let items)?: return !items.isEmpty
            case .object(let members)?: return !members.isEmpty
            default: return true
            }
        }
        guard let selected = isDefinite ? found.first : .array(found) else { return test.passes([]) }
        return test.passes([Self.text(of: selected)])
    }

    /// A selected value as text, as WireMock hands it to a string test and as `{{jsonPath}}`
    /// renders it: a string as itself, a whole number without a fraction (`2`), others as
    /// compact JSON.
    static func text(of value: JSONValue) -> String {
        switch value {
        case .string(let text): return text
        case .number(let number) where number == number.rounded() && abs(number) < 1e15: return String(Int64(number))
        case .number(let number): return String(number)
        case .bool(let flag): return String(flag)
        case .null: return "null"
        case .array, .object: return String(decoding: value.encoded, as: UTF8.self)
        }
    }
}
