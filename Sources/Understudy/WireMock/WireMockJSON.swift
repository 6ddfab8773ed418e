import Foundation
internal import Yams

/// A node of a WireMock mapping file read by JSON's rules rather than YAML's.
///
/// Mapping files are JSON, composed with Yams for its line numbers; YAML 1.1 would read a
/// plain `2e3` as a string, so a scalar's JSON type comes from how it is written: quoted is a
/// string, `true`/`false`/`null` are themselves, anything else plain is a number (the text
/// already passed a JSON syntax check).
enum WireMockJSON {
    /// The node's kind by JSON's rules (see ``NodeKind``; stub files read the same kinds by
    /// YAML's): a plain number is an `int` when it is a whole number an `Int` holds, else a `float`.
    static func kind(of node: Node) -> NodeKind {
        switch node {
        case .mapping: return .mapping
        case .sequence: return .list
        case .alias: return .string
        case .scalar(let scalar):
            guard scalar.style == .plain else { return .string }
            switch scalar.string {
            case "true", "false": return .bool
            case "null": return .null
            default: return Int(scalar.string) != nil ? .int : .float
            }
        }
    }

    /// How messages name what was found: `an object`, `number 5`, `string 'abc'`.
    static func found(_ node: Node) -> String {
        found(kind(of: node), node.scalar?.string ?? "")
    }

    /// How messages name a node of `kind` written `text`.
    static func found(_ kind: NodeKind, _ text: String) -> String {
        switch kind {
        case .mapping: "an object"
        case .list: "an array"
        case .string: "string '\(text)'"
        case .int, .float: "number \(text)"
        case .bool: text
        case .null: "null"
        }
    }

    // MARK: - Serializing as WireMock does

    /// The bytes WireMock 2.35.1 sends for a `jsonBody`: compact, keys in file order, strings
    /// escaped as Jackson does (quote, backslash and control characters only), and numbers as
    /// Jackson's `BigDecimal` prints them with trailing zeros stripped (`1.50` is `1.5`, `1.0` is
    /// `1`, `2e3` is `2000`). `nil` for a number too large to write out.
    static func serialized(_ node: Node) -> Data? {
        var output = ""
        guard write(node, into: &output) else { return nil }
        return Data(output.utf8)
    }

    private static func write(_ node: Node, into output: inout String) -> Bool {
        switch node {
        case .mapping(let mapping):
            output += "{"
            for (index, (key, value)) in mapping.enumerated() {
                if index > 0 { output += "," }
                writeString(key.scalar?.string ?? "", into: &output)
                output += ":"
                guard write(value, into: &output) else { return false }
            }
            output += "}"
        case .sequence(let sequence):
            output += "["
            for (index, element) in sequence.enumerated() {
                if index > 0 { output += "," }
                guard write(element, into: &output) else { return false }
            }
            output += "]"
        case .scalar, .alias:
            let text = node.scalar?.string ?? ""
            switch kind(of: node) {
            case .int, .float:
                guard let plain = plainDecimal(text) else { return false }
                output += plain
            case .bool, .null:
                output += text
            default:
                writeString(text, into: &output)
            }
        }
        return true
    }

    private static func writeString(_ text: String, into output: inout String) {
        output += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "\u{08}": output += "\\b"
            case "\u{0C}": output += "\\f"
            case _ where scalar.value < 0x20:
                output += String(format: "\\u%04X", scalar.value)
            default:
                output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }

    /// The most digits a number may expand to when written without an exponent.
    static let maximumPlainDigits = 1_000

    /// A JSON number written as `BigDecimal.stripTrailingZeros().toPlainString()` would:
    /// exact, without exponent, without trailing fraction zeros, `-0` as `0`.
    static func plainDecimal(_ text: String) -> String? {
        var rest = Substring(text)
        let negative = rest.hasPrefix("-")
        if negative { rest = rest.dropFirst() }
        var exponent = 0
        if let e = rest.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            guard let value = Int(rest[rest.index(after: e)...]) else { return nil }
            exponent = value
            rest = rest[..<e]
        }
        var digits: String
        if let dot = rest.firstIndex(of: ".") {
            let fraction = rest[rest.index(after: dot)...]
            digits = String(rest[..<dot]) + fraction
            exponent -= fraction.count
        } else {
            digits = String(rest)
        }
        guard !digits.isEmpty, digits.allSatisfy(\.isASCIIDigit) else { return nil }
        digits = String(digits.drop { $0 == "0" })
        guard !digits.isEmpty else { return "0" }
        while digits.hasSuffix("0") {
            digits.removeLast()
            exponent += 1
        }
        guard abs(exponent) <= maximumPlainDigits else { return nil }
        var plain: String
        if exponent >= 0 {
            plain = digits + String(repeating: "0", count: exponent)
        } else {
            let point = digits.count + exponent
            if point <= 0 {
                plain = "0." + String(repeating: "0", count: -point) + digits
            } else {
                let index = digits.index(digits.startIndex, offsetBy: point)
                plain = digits[..<index] + "." + digits[index...]
            }
        }
        return negative ? "-" + plain : plain
    }

    // MARK: - Values

    /// The node as a ``JSONValue``, for `equalToJson`; `nil` for a number a `Double` cannot hold.
    static func value(_ node: Node) -> JSONValue? {
        switch node {
        case .mapping(let mapping):
            var object: [String: JSONValue] = [:]
            for (key, value) in mapping {
                guard let converted = Self.value(value) else { return nil }
                object[key.scalar?.string ?? ""] = converted
            }
            return .object(object)
        case .sequence(let sequence):
            var array: [JSONValue] = []
            for element in sequence {
                guard let converted = value(element) else { return nil }
                array.append(converted)
            }
            return .array(array)
        case .scalar, .alias:
            let text = node.scalar?.string ?? ""
            switch kind(of: node) {
            case .int, .float: return Double(text).flatMap { $0.isFinite ? .number($0) : nil }
            case .bool: return .bool(text == "true")
            case .null: return .null
            default: return .string(text)
            }
        }
    }

    /// The first string inside `value` that is a JsonUnit placeholder (`${json-unit.any-string}`),
    /// which WireMock's `equalToJson` treats as a wildcard.
    static func placeholder(in value: JSONValue) -> String? {
        switch value {
        case .string(let text): return text.contains("${json-unit.") ? text : nil
        case .array(let items): return items.lazy.compactMap(placeholder(in:)).first
        case .object(let members): return members.values.lazy.compactMap(placeholder(in:)).first
        default: return nil
        }
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool {
        ("0"..."9").contains(self)
    }
}
