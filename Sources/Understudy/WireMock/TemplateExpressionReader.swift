import Foundation

/// Reads what stands between `{{` and `}}` in a WireMock template into a
/// ``ResponseTemplate/Expression``: a path (`request.query.size.[0]`, `this`, `@index`), a
/// literal (`'text'`, `"text"`, `2`, `true`), a helper with its arguments (`eq a b`,
/// `jsonPath request.body '$.id'`, `now format='yyyy'`), or a subexpression in parentheses.
struct TemplateExpressionReader {
    typealias Expression = ResponseTemplate.Expression
    typealias ParseError = ResponseTemplate.ParseError

    let source: String
    let pathTemplate: PathTemplate?
    /// Whether the tag is inside an `{{#each}}` or `{{#with}}`, where `this` and bare names mean something.
    let scoped: Bool

    private enum Token {
        case word(String)
        case group([Token])
    }

    /// `{{x}}`: one value, or a helper with its arguments.
    mutating func output() throws(ParseError) -> Expression {
        let tokens = try Self.tokens(Array(source), from: 0).tokens
        return try expression(tokens)
    }

    /// The argument of `{{#name ...}}`: one value or a helper call.
    mutating func blockArgument(_ name: String) throws(ParseError) -> Expression {
        let tokens = try Self.tokens(Array(source.dropFirst(1 + name.count)), from: 0).tokens
        guard !tokens.isEmpty else { throw ParseError(message: "'{{#\(name)}}' needs an argument, as in {{#\(name) request.query.size}}") }
        return try expression(tokens)
    }

    private func expression(_ tokens: [Token]) throws(ParseError) -> Expression {
        guard let head = tokens.first else { throw ParseError(message: "empty template expression '{{\(source)}}'; supported: \(ResponseTemplate.helpers)") }
        if case .word(let name) = head {
            if let helper = ResponseTemplate.Helper(rawValue: name) {
                let arguments = try tokens.dropFirst().map { token throws(ParseError) in try parameter(token) }
                try check(helper, arguments)
                return .helper(helper, arguments)
            }
            if name == "now" || name == "randomValue" {
                return try hashHelper(name, Array(tokens.dropFirst()))
            }
        }
        guard tokens.count == 1 else {
            if case .word(let name) = head { throw ParseError(message: "unknown template helper '\(name)'; supported: \(ResponseTemplate.helpers)") }
            throw ParseError(message: "'{{\(source)}}' has several values; expected one, or a helper with its arguments")
        }
        return try parameter(head)
    }

    private func check(_ helper: ResponseTemplate.Helper, _ arguments: [Expression]) throws(ParseError) {
        let counts: ClosedRange<Int>
        switch helper {
        case .not: counts = 1...1
        case .and, .or: counts = 1...16
        default: counts = 2...2
        }
        guard counts.contains(arguments.count) else {
            throw ParseError(message: "'\(helper.rawValue)' takes \(counts.lowerBound == counts.upperBound ? "\(counts.lowerBound)" : "at least \(counts.lowerBound)") argument(s), found \(arguments.count) in '{{\(source)}}'")
        }
        if helper == .jsonPath, case .literal(.string(let text)) = arguments[1] {
            do {
                _ = try JSONPath(text)
            } catch {
                throw ParseError(message: "jsonPath in '{{\(source)}}': \(error.description)")
            }
        }
    }

    private func parameter(_ token: Token) throws(ParseError) -> Expression {
        switch token {
        case .group(let inner):
            return try expression(inner)
        case .word(let word):
            if let quote = word.first, quote == "'" || quote == "\"" {
                return .literal(.string(String(word.dropFirst().dropLast())))
            }
            if word == "true" || word == "false" { return .literal(.bool(word == "true")) }
            if let number = Double(word), word.first?.isNumber == true || word.first == "-" { return .literal(.number(number)) }
            if word.contains("=") {
                throw ParseError(message: "unsupported argument '\(word)' in '{{\(source)}}'; only now and randomValue take name=value")
            }
            return try path(word)
        }
    }

    private func path(_ word: String) throws(ParseError) -> Expression {
        let segments = Self.segments(word)
        if segments.first == "request" {
            let fields = Array(segments.dropFirst())
            try checkRequest(fields, word)
            return .request(fields, pathTemplate)
        }
        if scoped, let first = segments.first, !first.isEmpty {
            if first.hasPrefix("@"), !["@index", "@first", "@last", "@key"].contains(first) {
                throw ParseError(message: "unknown template variable '\(first)'; expected @index, @first, @last or @key")
            }
            return .local(segments)
        }
        throw ParseError(message: "unknown template helper '\(word)'; supported: \(ResponseTemplate.helpers)")
    }

    private func checkRequest(_ fields: [String], _ word: String) throws(ParseError) {
        let unknown = ParseError(message: "unknown template expression '\(word)'; supported: \(ResponseTemplate.helpers)")
        guard let first = fields.first else { throw unknown }
        switch first {
        case "url", "method", "host", "port", "scheme", "baseUrl", "body":
            guard fields.count == 1 else { throw unknown }
        case "pathSegments":
            guard fields.count <= 2, fields.count == 1 || Int(fields[1]) != nil else { throw unknown }
        case "path":
            guard fields.count <= 2 else { throw unknown }
            if fields.count == 2, Int(fields[1]) == nil {
                guard let pathTemplate, pathTemplate.parameterNames.contains(fields[1]) else {
                    let known = pathTemplate.map { "its parameters are \($0.parameterNames.joined(separator: ", "))" } ?? "the mapping has no urlPathTemplate"
                    throw ParseError(message: "'\(word)' names no path parameter: \(known); expected a urlPathTemplate such as /images/{\(fields[1])}")
                }
            }
        case "query", "headers":
            guard fields.count <= 3, fields.count < 3 || Int(fields[2]) != nil else { throw unknown }
        default:
            throw unknown
        }
    }

    /// `now` and `randomValue`, which take `name=value` arguments.
    private func hashHelper(_ name: String, _ tokens: [Token]) throws(ParseError) -> Expression {
        var arguments: [String: String] = [:]
        for token in tokens {
            guard case .word(let word) = token, let equals = word.firstIndex(of: "=") else {
                throw ParseError(message: "unsupported argument in '{{\(source)}}'; expected name=value")
            }
            arguments[String(word[..<equals])] = Self.unquoted(String(word[word.index(after: equals)...]))
        }
        func check(_ allowed: [String]) throws(ParseError) {
            if let unknown = arguments.keys.sorted().first(where: { !allowed.contains($0) }) {
                throw ParseError(message: "unsupported argument '\(unknown)' of '\(name)' in '{{\(source)}}'; supported: \(allowed.joined(separator: ", "))")
            }
        }
        if name == "now" {
            try check(["format", "offset", "timezone"])
            var offset: (Calendar.Component, Int)?
            if let text = arguments["offset"] {
                guard let parsed = Self.parseOffset(text) else {
                    throw ParseError(message: "offset '\(text)' of 'now' is not understood; expected something like '3 days' or '-1 hours'")
                }
                offset = parsed
            }
            var timeZone: TimeZone?
            if let zoneName = arguments["timezone"] {
                guard let zone = TimeZone(identifier: zoneName) else {
                    throw ParseError(message: "timezone '\(zoneName)' of 'now' is not known; expected one like UTC or Europe/Paris")
                }
                timeZone = zone
            }
            return .now(format: arguments["format"], offset: offset, timeZone: timeZone)
        }
        try check(["length", "type", "uppercase"])
        let typeName = arguments["type"] ?? "ALPHANUMERIC"
        guard let type = ResponseTemplate.RandomType(rawValue: typeName) else {
            throw ParseError(message: "randomValue type '\(typeName)' is not supported; expected one of \(ResponseTemplate.RandomType.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        var length = 36
        if type != .UUID {
            guard let text = arguments["length"], let value = Int(text), (0...100_000).contains(value) else {
                throw ParseError(message: "randomValue needs a length from 0 to 100000, e.g. {{randomValue length=8 type='ALPHANUMERIC'}}")
            }
            length = value
        }
        return .randomValue(length: length, type: type, uppercase: arguments["uppercase"] == "true")
    }

    // MARK: - Tokens

    /// Words split at spaces outside quotes, and `( ... )` groups; returns where it stopped.
    private static func tokens(_ characters: [Character], from start: Int) throws(ParseError) -> (tokens: [Token], end: Int) {
        var tokens: [Token] = []
        var current = ""
        var quote: Character?
        var index = start
        func flush() {
            if !current.isEmpty { tokens.append(.word(current)) }
            current = ""
        }
        while index < characters.count {
            let character = characters[index]
            if let open = quote {
                current.append(character)
                if character == open { quote = nil }
            } else if character == "'" || character == "\"" {
                quote = character
                current.append(character)
            } else if character == "(" {
                flush()
                let (inner, end) = try Self.tokens(characters, from: index + 1)
                guard end < characters.count, characters[end] == ")" else {
                    throw ParseError(message: "'(' without a closing ')' in '{{\(String(characters))}}'")
                }
                tokens.append(.group(inner))
                index = end
            } else if character == ")" {
                flush()
                return (tokens, index)
            } else if character.isWhitespace {
                flush()
            } else {
                current.append(character)
            }
            index += 1
        }
        if quote != nil { throw ParseError(message: "unclosed quote in '{{\(String(characters))}}'") }
        flush()
        return (tokens, index)
    }

    private static func unquoted(_ text: String) -> String {
        guard text.count >= 2, let first = text.first, first == "'" || first == "\"", text.last == first else { return text }
        return String(text.dropFirst().dropLast())
    }

    /// `pathSegments.[1]` is `["pathSegments", "1"]`, `headers.[X-Id]` is `["headers", "X-Id"]`.
    static func segments(_ path: String) -> [String] {
        var result: [String] = []
        var rest = Substring(path)
        while !rest.isEmpty {
            if rest.hasPrefix("[") {
                let end = rest.firstIndex(of: "]") ?? rest.endIndex
                result.append(String(rest[rest.index(after: rest.startIndex)..<end]))
                rest = end < rest.endIndex ? rest[rest.index(after: end)...] : ""
            } else {
                let end = rest.firstIndex(of: ".") ?? rest.endIndex
                result.append(String(rest[..<end]))
                rest = rest[end...]
            }
            if rest.hasPrefix(".") { rest = rest.dropFirst() }
        }
        return result
    }

    private static func parseOffset(_ text: String) -> (Calendar.Component, Int)? {
        let words = text.split(separator: " ")
        guard words.count == 2, let amount = Int(words[0]) else { return nil }
        let units: [String: Calendar.Component] = [
            "seconds": .second, "minutes": .minute, "hours": .hour, "days": .day, "months": .month, "years": .year,
        ]
        var unit = words[1].lowercased()
        if !unit.hasSuffix("s") { unit += "s" }
        return units[unit].map { ($0, amount) }
    }
}
