import Foundation

/// HTTP header fields in the order they were given, looked up case-insensitively.
///
/// Names keep their original spelling for display; lookups ignore case as HTTP says.
/// ```swift
/// var headers: HeaderFields = ["Content-Type": "image/png"]
/// headers["content-type"]  // "image/png"
/// ```
public struct HeaderFields: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    /// One header line.
    public struct Field: Sendable, Hashable {
        /// The name as it was given.
        public var name: String
        /// The value, exactly as it was given.
        public var value: String

        /// Creates a header line.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The header lines in order.
    public private(set) var fields: [Field]

    /// Creates headers from ordered lines.
    public init(_ fields: [Field] = []) {
        self.fields = fields
    }

    /// Creates headers from name/value pairs, keeping their order.
    public init(_ pairs: [(String, String)]) {
        self.fields = pairs.map { Field(name: $0.0, value: $0.1) }
    }

    /// Creates headers from a dictionary literal, in the literal's order.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    /// Creates headers from a Foundation header dictionary (sorted by name, as dictionaries have no order).
    public init(_ dictionary: [String: String]) {
        self.init(dictionary.sorted { $0.key.lowercased() < $1.key.lowercased() }.map { ($0.key, $0.value) })
    }

    /// The first value for `name` (case-insensitive); setting replaces every line of that name.
    public subscript(name: String) -> String? {
        get { fields.first { $0.name.caseInsensitiveEquals(name) }?.value }
        set {
            guard let newValue else { return remove(name) }
            guard let first = fields.firstIndex(where: { $0.name.caseInsensitiveEquals(name) }) else {
                return fields.append(Field(name: name, value: newValue))
            }
            fields[first].value = newValue
            fields = fields.enumerated()
                .filter { $0.offset <= first || !$0.element.name.caseInsensitiveEquals(name) }
                .map(\.element)
        }
    }

    /// Every value for `name`, in order.
    public func values(for name: String) -> [String] {
        fields.filter { $0.name.caseInsensitiveEquals(name) }.map(\.value)
    }

    /// Whether a line named `name` is present.
    public func contains(_ name: String) -> Bool {
        fields.contains { $0.name.caseInsensitiveEquals(name) }
    }

    /// Appends a line, keeping any existing lines of that name.
    public mutating func add(name: String, value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Removes every line named `name`.
    public mutating func remove(_ name: String) {
        fields.removeAll { $0.name.caseInsensitiveEquals(name) }
    }

    /// Sets each of `other`'s headers, replacing lines of the same name.
    public mutating func merge(_ other: HeaderFields) {
        var replaced = Set<String>()
        for field in other.fields {
            let key = field.name.lowercased()
            if !replaced.contains(key) {
                remove(field.name)
                replaced.insert(key)
            }
            fields.append(field)
        }
    }

    /// The number of lines.
    public var count: Int { fields.count }

    /// Whether there are no lines.
    public var isEmpty: Bool { fields.isEmpty }

    public func makeIterator() -> IndexingIterator<[Field]> {
        fields.makeIterator()
    }

    /// A dictionary for Foundation APIs; repeated names are joined with ", ".
    public var dictionary: [String: String] {
        var result: [String: String] = [:]
        var spelling: [String: String] = [:]
        for field in fields {
            let key = field.name.lowercased()
            if let name = spelling[key] {
                result[name] = result[name].map { $0 + ", " + field.value } ?? field.value
            } else {
                spelling[key] = field.name
                result[field.name] = field.value
            }
        }
        return result
    }

    /// The lines sorted by name, so that printed headers diff cleanly.
    public var sorted: [Field] {
        fields.enumerated().sorted { lhs, rhs in
            let l = lhs.element.name.lowercased(), r = rhs.element.name.lowercased()
            return l == r ? lhs.offset < rhs.offset : l < r
        }.map(\.element)
    }

    public var description: String {
        sorted.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
    }
}

extension String {
    /// Header names are ASCII: compared byte by byte without allocating, which matters since
    /// every header lookup runs this; anything non-ASCII falls back to `lowercased()`.
    func caseInsensitiveEquals(_ other: String) -> Bool {
        guard self.utf8.count == other.utf8.count else { return false }
        // Usually spelled alike (`Host`, `Accept`): one comparison of the bytes.
        if self == other { return true }
        var isASCII = true
        let equal = zip(self.utf8, other.utf8).allSatisfy { a, b in
            if a >= 0x80 || b >= 0x80 {
                isASCII = false
                return true
            }
            return a == b || (a | 0x20 == b | 0x20 && (a | 0x20) >= UInt8(ascii: "a") && (a | 0x20) <= UInt8(ascii: "z"))
        }
        return isASCII ? equal : self.lowercased() == other.lowercased()
    }
}
