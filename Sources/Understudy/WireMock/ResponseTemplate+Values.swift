import Foundation

extension ResponseTemplate {
    /// What `expression` is for `request` in `scope`.
    static func value(_ expression: Expression, _ request: StubRequest, _ scope: Scope) -> TemplateValue {
        switch expression {
        case .literal(let value):
            return value
        case .request(let fields, let pathTemplate):
            return requestValue(fields, pathTemplate, request)
        case .local(let segments):
            return localValue(segments, scope)
        case .helper(let helper, let arguments):
            return apply(helper, arguments.map { value($0, request, scope) })
        case .now(let format, let offset, let timeZone):
            var date = Date()
            if let (unit, amount) = offset {
                date = Calendar(identifier: .gregorian).date(byAdding: unit, value: amount, to: date) ?? date
            }
            return .string(formatted(date, format, timeZone ?? TimeZone(identifier: "UTC")!))
        case .randomValue(let length, let type, let uppercase):
            let text = random(length, type)
            return .string(uppercase ? text.uppercased() : text)
        }
    }

    /// A field of WireMock's request model, then `.[n]` or `.name` into it.
    private static func requestValue(_ fields: [String], _ pathTemplate: PathTemplate?, _ request: StubRequest) -> TemplateValue {
        let segments = request.wireMockPath.split(separator: "/", omittingEmptySubsequences: true).map { TemplateValue.string(String($0)) }
        switch fields.first {
        case "url": return .string(request.wireMockURL)
        case "path" where fields.count == 1: return .string(request.wireMockPath)
        case "path":
            if let index = Int(fields[1]) { return segments.indices.contains(index) ? segments[index] : .missing }
            return pathTemplate?.parameters(in: request.wireMockPath)?[fields[1]].map(TemplateValue.string) ?? .missing
        case "pathSegments":
            let list = TemplateValue.list(segments, json: false)
            return fields.count == 2 ? list.member(fields[1]) : list
        case "query":
            let query = request.wireMockQuery
            guard fields.count >= 2 else {
                let names = Set(query.map(\.name))
                return .map(Dictionary(uniqueKeysWithValues: names.map { name in (name, .listOrSingle(query.filter { $0.name == name }.map(\.value))) }), json: false)
            }
            let values = TemplateValue.listOrSingle(query.filter { $0.name == fields[1] }.map(\.value))
            return fields.count == 3 ? values.member(fields[2]) : values
        case "headers":
            guard fields.count >= 2 else {
                let names = Set(request.headers.fields.map(\.name))
                return .map(Dictionary(names.map { ($0, TemplateValue.listOrSingle(request.headers.values(for: $0))) }, uniquingKeysWith: { first, _ in first }), json: false)
            }
            let values = TemplateValue.listOrSingle(request.headers.values(for: fields[1].lowercased()))
            return fields.count == 3 ? values.member(fields[2]) : values
        case "method": return .string(request.method)
        case "host": return .string(request.host)
        case "port": return .string(String(request.port ?? (request.scheme == "https" ? 443 : 80)))
        case "scheme": return .string(request.scheme)
        case "baseUrl":
            let port = request.port.map { ":\($0)" } ?? ""
            return .string("\(request.scheme)://\(request.host)\(port)")
        case "body": return .string(request.body.map { String(decoding: $0, as: UTF8.self) } ?? "")
        default: return .missing
        }
    }

    /// `this`, `this.x`, `@index` and friends, or `x` looked up in `this`.
    private static func localValue(_ segments: [String], _ scope: Scope) -> TemplateValue {
        guard let first = segments.first else { return .missing }
        var value: TemplateValue
        var rest = segments.dropFirst()
        switch first {
        case "this": value = scope.this
        case "@index": return scope.index.map { .number(Double($0)) } ?? .missing
        case "@first": return scope.index.map { .bool($0 == 0) } ?? .missing
        case "@last": return scope.index.map { .bool($0 == scope.count - 1) } ?? .missing
        case "@key": return scope.key.map(TemplateValue.string) ?? .missing
        default:
            value = scope.this
            rest = segments[...]
        }
        for segment in rest { value = value.member(segment) }
        return value
    }

    /// The comparison helpers, `and`, `or`, `not` and `jsonPath`.
    private static func apply(_ helper: Helper, _ arguments: [TemplateValue]) -> TemplateValue {
        switch helper {
        case .eq: return .bool(arguments[0] == arguments[1])
        case .ne, .neq: return .bool(arguments[0] != arguments[1])
        case .gt, .gte, .lt, .lte:
            let order: ComparisonResult?
            switch (arguments[0], arguments[1]) {
            case (.number(let a), .number(let b)): order = a < b ? .orderedAscending : a > b ? .orderedDescending : .orderedSame
            case (.string(let a), .string(let b)): order = a < b ? .orderedAscending : a > b ? .orderedDescending : .orderedSame
            default: order = nil
            }
            guard let order else { return .bool(false) }
            switch helper {
            case .gt: return .bool(order == .orderedDescending)
            case .gte: return .bool(order != .orderedAscending)
            case .lt: return .bool(order == .orderedAscending)
            default: return .bool(order != .orderedDescending)
            }
        case .and: return .bool(arguments.allSatisfy(\.isTruthy))
        case .or: return .bool(arguments.contains(where: \.isTruthy))
        case .not: return .bool(!arguments[0].isTruthy)
        case .jsonPath:
            guard let json = try? JSONValue(parsing: Data(arguments[0].text.utf8)), let path = try? JSONPath(arguments[1].text) else { return .missing }
            let found = path.evaluate(json)
            if path.isDefinite { return found.first.map(TemplateValue.init) ?? .missing }
            return .list(found.map(TemplateValue.init), json: true)
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
}
