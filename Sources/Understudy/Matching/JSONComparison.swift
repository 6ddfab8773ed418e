import Foundation

/// How a JSON body is compared with the JSON a matcher expects: exactly (object members in any
/// order), or with WireMock's `equalToJson` options `ignoreArrayOrder` and `ignoreExtraElements`.
public struct JSONComparison: Sendable, Hashable {
    /// Arrays match whatever the order of their items (each expected item paired with its own).
    public var ignoresArrayOrder: Bool
    /// Objects may have members the expected JSON lacks, and arrays items beyond it.
    public var ignoresExtraElements: Bool

    /// The comparison with the options given (none: exact).
    public init(ignoresArrayOrder: Bool = false, ignoresExtraElements: Bool = false) {
        self.ignoresArrayOrder = ignoresArrayOrder
        self.ignoresExtraElements = ignoresExtraElements
    }

    /// Exact: equal values, object members in any order.
    public static let exact = JSONComparison()

    /// Whether `actual` matches `expected` under these options.
    public func matches(_ expected: JSONValue, _ actual: JSONValue) -> Bool {
        switch (expected, actual) {
        case (.object(let wanted), .object(let given)):
            guard ignoresExtraElements || wanted.count == given.count else { return false }
            return wanted.allSatisfy { key, value in given[key].map { matches(value, $0) } ?? false }
        case (.array(let wanted), .array(let given)):
            guard ignoresExtraElements ? wanted.count <= given.count : wanted.count == given.count else { return false }
            guard ignoresArrayOrder else { return zip(wanted, given).allSatisfy { matches($0, $1) } }
            return pairs(wanted[...], Array(given))
        case (.number(let a), .number(let b)):
            return a == b
        default:
            return expected == actual
        }
    }

    /// Whether each expected item pairs with a different given item (backtracking, as arrays in
    /// request bodies are short).
    private func pairs(_ wanted: ArraySlice<JSONValue>, _ given: [JSONValue]) -> Bool {
        guard let first = wanted.first else { return true }
        for (index, candidate) in given.enumerated() where matches(first, candidate) {
            var rest = given
            rest.remove(at: index)
            if pairs(wanted.dropFirst(), rest) { return true }
        }
        return false
    }

    /// The options in words, for matcher descriptions: empty when exact.
    var words: String {
        [ignoresArrayOrder ? "in any array order" : nil, ignoresExtraElements ? "ignoring extra elements" : nil]
            .compactMap { $0 }.joined(separator: ", ")
    }
}
