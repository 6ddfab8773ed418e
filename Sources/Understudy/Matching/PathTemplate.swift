import Foundation

/// A path template as WireMock 3 writes one (`urlPathTemplate`): `/images/{id}/size/{size}`,
/// literal segments and `{name}` segments that each stand for one whole, non-empty segment.
///
/// Matched against the path as sent (still percent-encoded), as WireMock's `urlPath` is; the
/// query plays no part. The values of the named segments are the path parameters that
/// `pathParameters` tests and templates read as `{{request.path.<name>}}`.
///
/// ```swift
/// let template = try PathTemplate("/images/{id}")
/// template.parameters(in: "/images/cat")  // ["id": "cat"]
/// template.parameters(in: "/images/")     // nil
/// ```
public struct PathTemplate: Sendable, Hashable, CustomStringConvertible {
    enum Segment: Sendable, Hashable {
        case literal(String)
        case parameter(String)
    }

    /// A template that cannot be read, with what is wrong with it.
    public struct ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        /// What is wrong, naming the segment.
        public let description: String
    }

    /// The template as written.
    public let text: String
    let segments: [Segment]

    /// The names of its parameters, in order.
    public var parameterNames: [String] {
        segments.compactMap { if case .parameter(let name) = $0 { name } else { nil } }
    }

    /// Reads `text`.
    /// - Throws: ``ParseError`` for a template not starting with `/`, a segment mixing text
    ///   and a parameter (`a{id}`), an empty or repeated parameter name.
    public init(_ text: String) throws(ParseError) {
        guard text.hasPrefix("/") else {
            throw ParseError(description: "path template '\(text)' does not start with '/'; expected one like /images/{id}")
        }
        var segments: [Segment] = []
        var names: Set<String> = []
        for part in text.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
            guard part.contains("{") || part.contains("}") else {
                segments.append(.literal(String(part)))
                continue
            }
            let name = part.dropFirst().dropLast()
            guard part.hasPrefix("{"), part.hasSuffix("}"), !name.isEmpty, !name.contains("{"), !name.contains("}") else {
                throw ParseError(description: "segment '\(part)' of path template '\(text)' mixes text and a parameter; expected a whole segment such as {id}")
            }
            guard names.insert(String(name)).inserted else {
                throw ParseError(description: "parameter '\(name)' appears twice in path template '\(text)'; expected each name once")
            }
            segments.append(.parameter(String(name)))
        }
        self.text = text
        self.segments = segments
    }

    /// The parameters' values when `path` (as sent, without query) fits the template, else `nil`.
    public func parameters(in path: String) -> [String: String]? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        guard path.hasPrefix("/"), parts.count == segments.count else { return nil }
        var values: [String: String] = [:]
        for (segment, part) in zip(segments, parts) {
            switch segment {
            case .literal(let literal):
                guard part == literal else { return nil }
            case .parameter(let name):
                guard !part.isEmpty else { return nil }
                values[name] = String(part)
            }
        }
        return values
    }

    /// The template as written.
    public var description: String { text }
}
