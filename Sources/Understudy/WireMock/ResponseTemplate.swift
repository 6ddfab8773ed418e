import Foundation

/// A text of a WireMock response (`body`, a header value, `bodyFileName`) as its Handlebars
/// templating reads it: literal text and `{{...}}` expressions of the request model, `now` and
/// `randomValue`, rendered per request.
///
/// `{{x}}` escapes HTML as Handlebars does (`&` is `&amp;`); `{{{x}}}` does not. Parsing fails
/// on any helper or expression it does not know, naming it, so a template that would render
/// wrongly is refused when it is loaded, not when it is served.
///
/// ```swift
/// let template = try ResponseTemplate(parsing: "images/{{request.pathSegments.[1]}}.png")
/// template.render(for: request)   // "images/cat.png" for GET /photos/cat
/// ```
struct ResponseTemplate: Sendable {
    /// A refused template: what is wrong, in words that name the helper or expression.
    struct ParseError: Error, Sendable {
        let message: String
    }

    enum Piece: Sendable {
        case text(String)
        case expression(Expression, escaped: Bool)
    }

    enum Expression: Sendable {
        case url, path, pathSegment(Int), pathParameter(String, PathTemplate), query(String, index: Int?), header(String, index: Int?)
        case method, host, scheme, port, baseURL, body
        case now(format: String?, offset: (Calendar.Component, Int)?, timeZone: TimeZone?)
        case randomValue(length: Int, type: RandomType, uppercase: Bool)
        case string(String)
    }

    enum RandomType: String, Sendable, CaseIterable {
        case ALPHANUMERIC, ALPHABETIC, NUMERIC, ALPHANUMERIC_AND_SYMBOLS, HEXADECIMAL, UUID
    }

    let pieces: [Piece]

    /// Whether the text has no expression at all (it renders as itself).
    var isLiteral: Bool {
        pieces.allSatisfy { if case .text = $0 { return true } else { return false } }
    }

    static let helpers = "request.url, request.path, request.pathSegments.[n], request.path.[n], request.path.<parameter> (with urlPathTemplate), request.query.<name>, request.headers.<name>, request.method, request.host, request.port, request.scheme, request.baseUrl, request.body, now (format, offset, timezone), randomValue (length, type, uppercase)"

    /// Parses `text`.
    /// - Parameters:
    ///   - text: the template.
    ///   - pathTemplate: the mapping's `urlPathTemplate`, whose parameters `{{request.path.<name>}}` reads.
    /// - Throws: ``ParseError`` naming an unknown helper or a malformed expression.
    init(parsing text: String, pathTemplate: PathTemplate? = nil) throws(ParseError) {
        var pieces: [Piece] = []
        var rest = Substring(text)
        while let open = rest.range(of: "{{") {
            if open.lowerBound > rest.startIndex { pieces.append(.text(String(rest[..<open.lowerBound]))) }
            var inner = rest[open.upperBound...]
            let triple = inner.hasPrefix("{")
            if triple { inner = inner.dropFirst() }
            let closing = triple ? "}}}" : "}}"
            guard let close = inner.range(of: closing) else {
                throw ParseError(message: "'{{' without a closing '\(closing)' in template '\(text)'")
            }
            let source = inner[..<close.lowerBound].trimmingCharacters(in: .whitespaces)
            pieces.append(.expression(try Self.expression(source, pathTemplate: pathTemplate), escaped: !triple))
            rest = inner[close.upperBound...]
        }
        if !rest.isEmpty { pieces.append(.text(String(rest))) }
        self.pieces = pieces
    }

    // MARK: - Parsing expressions

    private static func expression(_ source: String, pathTemplate: PathTemplate?) throws(ParseError) -> Expression {
        if source.hasPrefix("#") || source.hasPrefix("/") || source.hasPrefix("!") || source.hasPrefix(">") || source.hasPrefix("else") {
            let name = source.drop { "#/!>".contains($0) }.prefix { !$0.isWhitespace }
            throw ParseError(message: "unsupported template block or helper '\(name.isEmpty ? source : String(name))' in '{{\(source)}}'; supported: \(helpers)")
        }
        let words = try tokens(source)
        guard let head = words.first else { throw ParseError(message: "empty template expression '{{}}'; supported: \(helpers)") }
        guard ["now", "randomValue"].contains(head) || head.hasPrefix("request.") || head.hasPrefix("'") || head.hasPrefix("\"") else {
            throw ParseError(message: "unknown template helper '\(head)'; supported: \(helpers)")
        }
        var arguments: [String: String] = [:]
        for word in words.dropFirst() {
            guard let equals = word.firstIndex(of: "=") else {
                throw ParseError(message: "unsupported argument '\(word)' in '{{\(source)}}'; expected name=value")
            }
            arguments[String(word[..<equals])] = unquoted(String(word[word.index(after: equals)...]))
        }
        func check(_ allowed: [String]) throws(ParseError) {
            if let unknown = arguments.keys.sorted().first(where: { !allowed.contains($0) }) {
                throw ParseError(message: "unsupported argument '\(unknown)' of '\(head)' in '{{\(source)}}'; supported: \(allowed.joined(separator: ", "))")
            }
        }
        switch head {
        case "now":
            try check(["format", "offset", "timezone"])
            var offset: (Calendar.Component, Int)?
            if let text = arguments["offset"] {
                guard let parsed = parseOffset(text) else {
                    throw ParseError(message: "offset '\(text)' of 'now' is not understood; expected something like '3 days' or '-1 hours'")
                }
                offset = parsed
            }
            var timeZone: TimeZone?
            if let name = arguments["timezone"] {
                guard let zone = TimeZone(identifier: name) else {
                    throw ParseError(message: "timezone '\(name)' of 'now' is not known; expected one like UTC or Europe/Paris")
                }
                timeZone = zone
            }
            return .now(format: arguments["format"], offset: offset, timeZone: timeZone)
        case "randomValue":
            try check(["length", "type", "uppercase"])
            let typeName = arguments["type"] ?? "ALPHANUMERIC"
            guard let type = RandomType(rawValue: typeName) else {
                throw ParseError(message: "randomValue type '\(typeName)' is not supported; expected one of \(RandomType.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            var length = 36
            if type != .UUID {
                guard let text = arguments["length"], let value = Int(text), (0...100_000).contains(value) else {
                    throw ParseError(message: "randomValue needs a length from 0 to 100000, e.g. {{randomValue length=8 type='ALPHANUMERIC'}}")
                }
                length = value
            }
            return .randomValue(length: length, type: type, uppercase: arguments["uppercase"] == "true")
        default:
            break
        }
        if head.hasPrefix("'") || head.hasPrefix("\"") {
            try check([])
            return .string(unquoted(head))
        }
        guard head.hasPrefix("request.") else {
            throw ParseError(message: "unknown template helper '\(head)'; supported: \(helpers)")
        }
        try check([])
        let path = segments(String(head.dropFirst("request.".count)))
        func index(_ at: Int) throws(ParseError) -> Int? {
            guard path.count > at else { return nil }
            guard path.count == at + 1, let value = Int(path[at]), value >= 0 else {
                throw ParseError(message: "unknown template expression '\(head)'; supported: \(helpers)")
            }
            return value
        }
        switch path.first {
        case "url" where path.count == 1: return .url
        case "path" where path.count == 1: return .path
        case "method" where path.count == 1: return .method
        case "host" where path.count == 1: return .host
        case "port" where path.count == 1: return .port
        case "scheme" where path.count == 1: return .scheme
        case "baseUrl" where path.count == 1: return .baseURL
        case "body" where path.count == 1: return .body
        case "pathSegments" where path.count == 2:
            guard let value = try index(1) else { break }
            return .pathSegment(value)
        case "path" where path.count == 2:
            // WireMock 3: `request.path.[n]` is a segment, `request.path.<name>` a path parameter.
            if let value = Int(path[1]), value >= 0 { return .pathSegment(value) }
            guard let pathTemplate, pathTemplate.parameterNames.contains(path[1]) else {
                let known = pathTemplate.map { "its parameters are \($0.parameterNames.joined(separator: ", "))" } ?? "the mapping has no urlPathTemplate"
                throw ParseError(message: "'\(head)' names no path parameter: \(known); expected a urlPathTemplate such as /images/{\(path[1])}")
            }
            return .pathParameter(path[1], pathTemplate)
        case "query" where path.count >= 2: return .query(path[1], index: try index(2))
        case "headers" where path.count >= 2: return .header(path[1], index: try index(2))
        default: break
        }
        throw ParseError(message: "unknown template expression '\(head)'; supported: \(helpers)")
    }

    /// Splits at spaces outside quotes.
    private static func tokens(_ source: String) throws(ParseError) -> [String] {
        var words: [String] = []
        var current = ""
        var quote: Character?
        for character in source {
            if let open = quote {
                current.append(character)
                if character == open { quote = nil }
            } else if character == "'" || character == "\"" {
                quote = character
                current.append(character)
            } else if character.isWhitespace {
                if !current.isEmpty { words.append(current) }
                current = ""
            } else {
                current.append(character)
            }
        }
        if quote != nil { throw ParseError(message: "unclosed quote in '{{\(source)}}'") }
        if !current.isEmpty { words.append(current) }
        return words
    }

    private static func unquoted(_ text: String) -> String {
        guard text.count >= 2, let first = text.first, first == "'" || first == "\"", text.last == first else { return text }
        return String(text.dropFirst().dropLast())
    }

    /// `pathSegments.[1]` is `["pathSegments", "1"]`, `headers.[X-Id]` is `["headers", "X-Id"]`.
    private static func segments(_ path: String) -> [String] {
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

    // MARK: - Rendering

    /// The text for `request`.
    func render(for request: StubRequest) -> String {
        var output = ""
        for piece in pieces {
            switch piece {
            case .text(let text): output += text
            case .expression(let expression, let escaped):
                let value = Self.value(expression, request)
                output += escaped ? Self.escapingHTML(value) : value
            }
        }
        return output
    }

    private static func value(_ expression: Expression, _ request: StubRequest) -> String {
        switch expression {
        case .url: return request.wireMockURL
        case .path: return request.wireMockPath
        case .pathSegment(let index):
            let segments = request.wireMockPath.split(separator: "/", omittingEmptySubsequences: true)
            return index < segments.count ? String(segments[index]) : ""
        case .pathParameter(let name, let template):
            return template.parameters(in: request.wireMockPath)?[name] ?? ""
        case .query(let name, let index):
            return listOrSingle(request.wireMockQuery.filter { $0.name == name }.map(\.value), index)
        case .header(let name, let index):
            let lowered = name.lowercased()
            return listOrSingle(request.headers.values(for: lowered), index)
        case .method: return request.method
        case .host: return request.host
        case .port: return String(request.port ?? (request.scheme == "https" ? 443 : 80))
        case .scheme: return request.scheme
        case .baseURL:
            let port = request.port.map { ":\($0)" } ?? ""
            return "\(request.scheme)://\(request.host)\(port)"
        case .body: return request.body.map { String(decoding: $0, as: UTF8.self) } ?? ""
        case .string(let text): return text
        case .now(let format, let offset, let timeZone):
            var date = Date()
            if let (unit, amount) = offset {
                date = Calendar(identifier: .gregorian).date(byAdding: unit, value: amount, to: date) ?? date
            }
            return formatted(date, format, timeZone ?? TimeZone(identifier: "UTC")!)
        case .randomValue(let length, let type, let uppercase):
            let text = random(length, type)
            return uppercase ? text.uppercased() : text
        }
    }

    /// WireMock's `ListOrSingle`: one value as itself, several as `[a, b]`, none as empty.
    private static func listOrSingle(_ values: [String], _ index: Int?) -> String {
        if let index { return index < values.count ? values[index] : "" }
        switch values.count {
        case 0: return ""
        case 1: return values[0]
        default: return "[" + values.joined(separator: ", ") + "]"
        }
    }

    private static func formatted(_ date: Date, _ format: String?, _ timeZone: TimeZone) -> String {
        switch format {
        case "epoch": return String(Int64((date.timeIntervalSince1970 * 1000).rounded(.down)))
        case "unix": return String(Int64(date.timeIntervalSince1970.rounded(.down)))
        case nil:
            // WireMock prints a plain `now` as ISO 8601 to the second, in UTC.
            var style = Date.ISO8601FormatStyle()
            style.timeZone = timeZone
            return date.formatted(style)
        case let pattern?:
            // Java's SimpleDateFormat patterns and ICU's agree on the common letters.
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = timeZone
            formatter.dateFormat = pattern
            return formatter.string(from: date)
        }
    }

    private static func random(_ length: Int, _ type: RandomType) -> String {
        let letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
        let digits = "0123456789"
        let alphabet: String
        switch type {
        case .UUID: return Foundation.UUID().uuidString.lowercased()
        case .ALPHANUMERIC: alphabet = letters + digits
        case .ALPHABETIC: alphabet = letters
        case .NUMERIC: alphabet = digits
        case .ALPHANUMERIC_AND_SYMBOLS: alphabet = letters + digits + "!@#$%^&*()-_=+[]{};:,.<>/?"
        case .HEXADECIMAL: alphabet = digits + "abcdef"
        }
        let characters = Array(alphabet)
        return String((0..<length).map { _ in characters.randomElement()! })
    }

    /// Handlebars' escaping of `{{x}}`.
    private static func escapingHTML(_ text: String) -> String {
        guard text.contains(where: { "&<>\"'`=".contains($0) }) else { return text }
        var output = ""
        for character in text {
            switch character {
            case "&": output += "&amp;"
            case "<": output += "&lt;"
            case ">": output += "&gt;"
            case "\"": output += "&quot;"
            case "'": output += "&#x27;"
            case "`": output += "&#x60;"
            case "=": output += "&#x3D;"
            default: output.append(character)
            }
        }
        return output
    }
}
