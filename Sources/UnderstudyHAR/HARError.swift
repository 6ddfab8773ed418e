import Foundation

/// A HAR document that cannot be read: names the file (when there is one), the member, and
/// what was wrong with it.
///
/// ```
/// session.har: log.entries[3].response.content.text: not valid base64
/// ```
public struct HARError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file read, when reading from one.
    public var file: String?
    /// Where in the document, like `log.entries[3].response.status`; empty for the whole document.
    public var path: String
    /// What was found and what was expected.
    public var message: String

    /// Creates an error.
    /// - Parameters:
    ///   - file: the file, if any.
    ///   - path: the member, like `log.entries[0].request.url`.
    ///   - message: what was wrong.
    public init(file: String? = nil, path: String, message: String) {
        self.file = file
        self.path = path
        self.message = message
    }

    /// `FILE: PATH: message`, leaving out the parts that are not known.
    public var description: String {
        [file, path.isEmpty ? nil : path, message].compactMap { $0 }.joined(separator: ": ")
    }

    static func invalid(_ codingPath: [any CodingKey], _ message: String) -> HARError {
        HARError(path: render(codingPath), message: message)
    }

    /// `log.entries[3].response`.
    static func render(_ codingPath: [any CodingKey]) -> String {
        var path = ""
        for key in codingPath {
            if let index = key.intValue {
                path += "[\(index)]"
            } else {
                path += path.isEmpty ? key.stringValue : "." + key.stringValue
            }
        }
        return path
    }

    /// The error for what `JSONDecoder` reported while reading a HAR document.
    static func from(_ error: DecodingError) -> HARError {
        switch error {
        case .keyNotFound(let key, let context) where context.codingPath.isEmpty:
            return invalid([key], "missing; a HAR document is {\"log\": {\"version\": \"1.2\", \"entries\": [...]}}")
        case .keyNotFound(let key, let context):
            return invalid(context.codingPath + [key], "missing")
        case .typeMismatch(_, let context) where context.codingPath.isEmpty:
            return HARError(path: "", message: "not a HAR document; expected an object with a \"log\" member")
        case .typeMismatch(let type, let context):
            return invalid(context.codingPath, "expected \(describe(type))\(found(context))")
        case .valueNotFound(let type, let context):
            return invalid(context.codingPath, "expected \(describe(type)), found null")
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty {
                return HARError(path: "", message: "not valid JSON")
            }
            return invalid(context.codingPath, context.debugDescription)
        @unknown default:
            return HARError(path: "", message: "\(error)")
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Int.Type, is Double.Type: return "a number"
        case is Bool.Type: return "true or false"
        case is [Any].Type: return "an array"
        default:
            let name = "\(type)"
            if name.hasPrefix("Array") { return "an array" }
            return "an object"
        }
    }

    private static func found(_ context: DecodingError.Context) -> String {
        // Foundation says what it found in its description ("...but found a string instead.").
        let text = context.debugDescription
        guard let range = text.range(of: "but found ") else { return "" }
        let rest = text[range.upperBound...].replacingOccurrences(of: " instead.", with: "")
        return ", found " + rest.trimmingCharacters(in: CharacterSet(charactersIn: ". "))
    }
}
