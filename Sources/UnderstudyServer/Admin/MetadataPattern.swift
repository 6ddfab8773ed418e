import Foundation
import Understudy

/// The patterns WireMock matches a mapping's `metadata` with: `equalToJson` (the whole
/// metadata) and `matchesJsonPath` (a JSONPath, filters included, that selects something,
/// optionally `equalTo`, `contains` or `matches` a text), read by the ``JSONPath`` that request
/// bodies are matched with.
struct MetadataPattern {
    private enum Test {
        case equalToJSON(JSONValue)
        case path(JSONPath, ValueTest?)
    }

    private enum ValueTest {
        case equalTo(String), contains(String), matches(NSRegularExpression)
    }

    private let test: Test

    init(_ body: Data) throws {
        let supported = #"supported: {"equalToJson": {...}}, {"matchesJsonPath": "$.a"} and {"matchesJsonPath": {"expression": "$.a", "equalTo": "x"}} (or contains, matches)"#
        guard let value = try? JSONValue(parsing: body), case .object(let fields) = value, fields.count == 1, let (key, argument) = fields.first else {
            throw AdminFailure(400, "the request body is not one metadata pattern; \(supported)", field: "body")
        }
        switch (key, argument) {
        case ("equalToJson", .string(let text)):
            guard let parsed = try? JSONValue(parsing: Data(text.utf8)) else {
                throw AdminFailure(400, "equalToJson: the text is not JSON", field: "equalToJson")
            }
            test = .equalToJSON(parsed)
        case ("equalToJson", let json):
            test = .equalToJSON(json)
        case ("matchesJsonPath", .string(let expression)):
            test = .path(try Self.path(expression), nil)
        case ("matchesJsonPath", .object(let options)):
            guard case .string(let expression)? = options["expression"] else {
                throw AdminFailure(400, "matchesJsonPath.expression: expected a JSON path such as $.tag", field: "matchesJsonPath.expression")
            }
            var valueTest: ValueTest?
            for (name, option) in options where name != "expression" {
                guard case .string(let text) = option else {
                    throw AdminFailure(400, "matchesJsonPath.\(name): expected a string", field: "matchesJsonPath.\(name)")
                }
                switch name {
                case "equalTo": valueTest = .equalTo(text)
                case "contains": valueTest = .contains(text)
                case "matches":
                    guard let regex = try? NSRegularExpression(pattern: "^(?:" + text + ")$") else {
                        throw AdminFailure(400, "matchesJsonPath.matches: '\(text)' is not a regular expression", field: "matchesJsonPath.matches")
                    }
                    valueTest = .matches(regex)
                default:
                    throw AdminFailure(400, "matchesJsonPath.\(name): unsupported; supported: expression with equalTo, contains or matches", field: "matchesJsonPath.\(name)")
                }
            }
            test = .path(try Self.path(expression), valueTest)
        default:
            throw AdminFailure(400, "\(key): unsupported metadata pattern; \(supported)", field: key)
        }
    }

    private static func path(_ expression: String) throws -> JSONPath {
        do {
            return try JSONPath(expression)
        } catch {
            throw AdminFailure(400, "matchesJsonPath: \(error.description)", field: "matchesJsonPath")
        }
    }

    func matches(_ metadata: JSONValue) -> Bool {
        switch test {
        case .equalToJSON(let expected):
            return metadata == expected
        case .path(let path, let valueTest):
            let found = path.evaluate(metadata)
            guard let value = path.isDefinite ? found.first : (found.isEmpty ? nil : .array(found)) else { return false }
            guard let valueTest else { return true }
            let text: String
            switch value {
            case .string(let string): text = string
            default: text = value.description
            }
            switch valueTest {
            case .equalTo(let expected): return text == expected
            case .contains(let part): return text.contains(part)
            case .matches(let regex): return regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
            }
        }
    }
}
