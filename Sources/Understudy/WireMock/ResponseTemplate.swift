import Foundation

/// A text of a WireMock response (`body`, a header value, `bodyFileName`) as its Handlebars
/// templating reads it: literal text, `{{...}}` expressions of the request model, `now`,
/// `randomValue`, `jsonPath` and the comparison helpers, and the blocks `{{#if}}`,
/// `{{#unless}}` (each with `{{else}}`), `{{#each}}` and `{{#with}}`, rendered per request.
///
/// `{{x}}` escapes HTML as Handlebars does (`&` is `&amp;`); `{{{x}}}` does not. Parsing fails
/// on any helper, block or expression it does not know, naming it, so a template that would
/// render wrongly is refused when it is loaded, not when it is served.
///
/// ```swift
/// let template = try ResponseTemplate(parsing: "images/{{#if (eq request.query.size.[0] 'l')}}large{{else}}small{{/if}}.png")
/// template.render(for: request)   // "images/large.png" for GET /photo?size=l
/// ```
struct ResponseTemplate: Sendable {
    /// A refused template: what is wrong, in words that name the helper or expression.
    struct ParseError: Error, Sendable {
        let message: String
    }

    indirect enum Node: Sendable {
        case text(String)
        case output(Expression, escaped: Bool)
        case block(BlockKind, Expression, body: [Node], inverse: [Node])
    }

    enum BlockKind: String, Sendable, CaseIterable {
        case `if`, unless, each, with
    }

    indirect enum Expression: Sendable {
        case literal(TemplateValue)
        /// A field of the request model: the segments after `request.`.
        case request([String], PathTemplate?)
        /// `this`, `@index`, `@first`, `@last`, `@key`, or a name looked up in `this`, inside
        /// an `{{#each}}` or `{{#with}}`.
        case local([String])
        case helper(Helper, [Expression])
        case now(format: String?, offset: (Calendar.Component, Int)?, timeZone: TimeZone?)
        case randomValue(length: Int, type: RandomType, uppercase: Bool)
    }

    enum Helper: String, Sendable, CaseIterable {
        case eq, ne, neq, gt, gte, lt, lte, and, or, not, jsonPath
    }

    enum RandomType: String, Sendable, CaseIterable {
        case ALPHANUMERIC, ALPHABETIC, NUMERIC, ALPHANUMERIC_AND_SYMBOLS, HEXADECIMAL, UUID
    }

    let nodes: [Node]

    /// Whether the text has no expression at all (it renders as itself).
    var isLiteral: Bool {
        nodes.allSatisfy { if case .text = $0 { true } else { false } }
    }

    static let helpers = "request.url, request.path, request.pathSegments.[n], request.path.[n], request.path.<parameter> (with urlPathTemplate), request.query.<name>, request.headers.<name>, request.method, request.host, request.port, request.scheme, request.baseUrl, request.body, now (format, offset, timezone), randomValue (length, type, uppercase), jsonPath, eq, ne, neq, gt, gte, lt, lte, and, or, not; blocks #if, #unless, #each, #with with {{else}}"

    /// Parses `text`.
    /// - Parameters:
    ///   - text: the template.
    ///   - pathTemplate: the mapping's `urlPathTemplate`, whose parameters `{{request.path.<name>}}` reads.
    /// - Throws: ``ParseError`` naming an unknown helper, block or malformed expression.
    init(parsing text: String, pathTemplate: PathTemplate? = nil) throws(ParseError) {
        // Each open block: its kind, argument, body so far, inverse once `{{else}}` came.
        var stack: [(kind: BlockKind, argument: Expression, body: [Node], inverse: [Node]?)] = []
        var top: [Node] = []
        func append(_ node: Node) {
            if stack.isEmpty {
                top.append(node)
            } else if stack[stack.count - 1].inverse != nil {
                stack[stack.count - 1].inverse!.append(node)
            } else {
                stack[stack.count - 1].body.append(node)
            }
        }
        var rest = Substring(text)
        while let open = rest.range(of: "{{") {
            if open.lowerBound > rest.startIndex { append(.text(String(rest[..<open.lowerBound]))) }
            var inner = rest[open.upperBound...]
            let triple = inner.hasPrefix("{")
            if triple { inner = inner.dropFirst() }
            let closing = triple ? "}}}" : "}}"
            guard let close = inner.range(of: closing) else {
                throw ParseError(message: "'{{' without a closing '\(closing)' in template '\(text)'")
            }
            let source = inner[..<close.lowerBound].trimmingCharacters(in: .whitespaces)
            rest = inner[close.upperBound...]
            let scoped = stack.contains { $0.kind == .each || $0.kind == .with }
            var reader = TemplateExpressionReader(source: source, pathTemplate: pathTemplate, scoped: scoped)
            if source.hasPrefix("!") { continue }
            if source.hasPrefix("#") {
                let name = String(source.dropFirst().prefix { !$0.isWhitespace })
                guard let kind = BlockKind(rawValue: name) else {
                    throw ParseError(message: "unsupported template block '{{#\(name)}}'; supported: \(Self.helpers)")
                }
                let argument = try reader.blockArgument(name)
                stack.append((kind, argument, [], nil))
            } else if source.hasPrefix("/") {
                let name = String(source.dropFirst())
                guard let block = stack.popLast() else {
                    throw ParseError(message: "'{{/\(name)}}' closes no block in template '\(text)'")
                }
                guard block.kind.rawValue == name else {
                    throw ParseError(message: "'{{/\(name)}}' closes '{{#\(block.kind.rawValue)}}'; expected '{{/\(block.kind.rawValue)}}'")
                }
                append(.block(block.kind, block.argument, body: block.body, inverse: block.inverse ?? []))
            } else if source == "else" {
                guard !stack.isEmpty, stack[stack.count - 1].inverse == nil else {
                    throw ParseError(message: "'{{else}}' outside a block, or twice in one, in template '\(text)'")
                }
                stack[stack.count - 1].inverse = []
            } else {
                append(.output(try reader.output(), escaped: !triple))
            }
        }
        if let unclosed = stack.last {
            throw ParseError(message: "'{{#\(unclosed.kind.rawValue)}}' is never closed; expected '{{/\(unclosed.kind.rawValue)}}' in template '\(text)'")
        }
        if !rest.isEmpty { append(.text(String(rest))) }
        self.nodes = top
    }

    // MARK: - Rendering

    /// What `this` and the `@` variables are inside an `{{#each}}` or `{{#with}}`.
    struct Scope {
        var this: TemplateValue = .missing
        var index: Int?
        var key: String?
        var count = 0
    }

    /// The text for `request`.
    func render(for request: StubRequest) -> String {
        var output = ""
        Self.render(nodes, request, Scope(), into: &output)
        return output
    }

    private static func render(_ nodes: [Node], _ request: StubRequest, _ scope: Scope, into output: inout String) {
        for node in nodes {
            switch node {
            case .text(let text):
                output += text
            case .output(let expression, let escaped):
                let text = value(expression, request, scope).text
                output += escaped ? escapingHTML(text) : text
            case .block(let kind, let argument, let body, let inverse):
                let subject = value(argument, request, scope)
                switch kind {
                case .if: render(subject.isTruthy ? body : inverse, request, scope, into: &output)
                case .unless: render(subject.isTruthy ? inverse : body, request, scope, into: &output)
                case .with:
                    guard subject.isTruthy else {
                        render(inverse, request, scope, into: &output)
                        continue
                    }
                    render(body, request, Scope(this: subject), into: &output)
                case .each:
                    let items = subject.items
                    guard !items.isEmpty else {
                        render(inverse, request, scope, into: &output)
                        continue
                    }
                    for (index, item) in items.enumerated() {
                        render(body, request, Scope(this: item.value, index: index, key: item.key, count: items.count), into: &output)
                    }
                }
            }
        }
    }

    /// Handlebars' escaping of `{{x}}`.
    static func escapingHTML(_ text: String) -> String {
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
