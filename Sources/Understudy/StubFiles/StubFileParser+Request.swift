import Foundation
internal import Yams

extension StubFileParser {
    static let requestKeys = [
        "method", "scheme", "host", "path", "pathPrefix", "pathPattern", "extension", "query", "headers",
        "cookies", "basicAuth", "accepts", "body",
    ]

    /// The `request:` mapping as one matcher: every given key must match. `nil` (reported)
    /// when any part is invalid; `null` or `{}` matches every request.
    mutating func parseRequest(_ node: Node, path: String) -> RequestMatcher? {
        if node.kind == .null { return .any }
        let issuesBefore = issues.count
        guard let fields = entries(node, path, allowed: Self.requestKeys, expected: "a request mapping") else {
            return nil
        }
        var parts: [RequestMatcher] = []
        for field in fields {
            let fieldPath = join(path, field.key)
            switch field.key {
            case "method":
                if let methods = strings(field.value, fieldPath, expected: "a method or a list of methods") {
                    parts.append(.anyOf(methods.map { RequestMatcher.method($0) }))
                }
            case "scheme":
                if let scheme = string(field.value, fieldPath) { parts.append(.scheme(scheme)) }
            case "host":
                if let host = string(field.value, fieldPath) { parts.append(.host(host)) }
            case "path":
                if let exact = absolutePath(field.value, fieldPath) { parts.append(.path(exact)) }
            case "pathPrefix":
                if let prefix = absolutePath(field.value, fieldPath) { parts.append(.pathPrefix(prefix)) }
            case "pathPattern":
                if let pattern = string(field.value, fieldPath, expected: "a regular expression") {
                    do {
                        parts.append(try .path(validating: pattern))
                    } catch {
                        report(field.value, fieldPath, "\(error)")
                    }
                }
            case "extension":
                if let extensions = strings(field.value, fieldPath, expected: "an extension or a list of extensions") {
                    parts.append(.anyOf(extensions.map { RequestMatcher.pathExtension($0) }))
                }
            case "query":
                parts += parseQuery(field.value, path: fieldPath)
            case "headers":
                parts += parseValueTests(field.value, path: fieldPath, cookies: false)
            case "cookies":
                parts += parseValueTests(field.value, path: fieldPath, cookies: true)
            case "basicAuth":
                if let credentials = parseBasicAuth(field.value, path: fieldPath) { parts.append(credentials) }
            case "accepts":
                if let mediaType = string(field.value, fieldPath, expected: "a media type") {
                    parts.append(.accepts(mediaType))
                }
            case "body":
                if let body = parseBodyTest(field.value, path: fieldPath) { parts.append(body) }
            default:
                preconditionFailure("key '\(field.key)' is allowed but not handled")
            }
        }
        return issues.count == issuesBefore ? .all(parts) : nil
    }

    /// A path, which must start with `/` since request paths always do.
    private mutating func absolutePath(_ node: Node, _ path: String) -> String? {
        guard let text = string(node, path, expected: "a path") else { return nil }
        guard text.hasPrefix("/") else {
            report(node, path, "path '\(text)' does not start with '/'; expected an absolute URL path like /\(text)")
            return nil
        }
        return text
    }

    /// `{ w: "200", debug: null }`: each name present, with that value or (null) any value.
    private mutating func parseQuery(_ node: Node, path: String) -> [RequestMatcher] {
        guard let fields = entries(node, path, allowed: nil, expected: "a mapping of query names to values") else {
            return []
        }
        return fields.compactMap { field in
            if field.value.kind == .null { return .query(field.key, nil) }
            let itemPath = join(path, field.key)
            return string(field.value, itemPath, expected: "a string, or null for any value").map { .query(field.key, $0) }
        }
    }

    /// `{ X-Client: ios, Accept: { contains: image/webp } }`, and the same tests of `cookies:`.
    private mutating func parseValueTests(_ node: Node, path: String, cookies: Bool) -> [RequestMatcher] {
        guard let fields = entries(node, path, allowed: nil, expected: "a mapping of \(cookies ? "cookie" : "header") names to tests") else {
            return []
        }
        let expected = "a value, {contains: text}, {pattern: regex}, {notPattern: regex} or {present: true|false}"
        return fields.compactMap { field in
            let itemPath = join(path, field.key)
            let test: RequestMatcher.HeaderTest
            if field.value.kind != .mapping {
                guard let value = string(field.value, itemPath, expected: expected) else { return nil }
                test = .equals(value)
            } else {
                guard let entry = singleEntry(field.value, itemPath, allowed: ["contains", "pattern", "notPattern", "present"], expected: expected)
                else { return nil }
                let testPath = join(itemPath, entry.key)
                switch entry.key {
                case "contains":
                    guard let part = string(entry.value, testPath) else { return nil }
                    test = .contains(part)
                case "pattern", "notPattern":
                    guard let pattern = string(entry.value, testPath, expected: "a regular expression") else { return nil }
                    do {
                        let box = try PatternBox(pattern)
                        test = entry.key == "pattern" ? .pattern(box) : .notPattern(box)
                    } catch {
                        report(entry.value, testPath, "\(error)")
                        return nil
                    }
                default:
                    guard entry.value.kind == .bool, let present = entry.value.bool else {
                        reportMismatch(entry.value, testPath, expected: "true or false")
                        return nil
                    }
                    test = present ? .present : .absent
                }
            }
            return RequestMatcher(cookies ? .cookie(name: field.key, test: test) : .header(name: field.key, test: test))
        }
    }

    /// `{ username: u, password: p }`: HTTP Basic credentials.
    private mutating func parseBasicAuth(_ node: Node, path: String) -> RequestMatcher? {
        guard let fields = entries(node, path, allowed: ["username", "password"], expected: "{username: name, password: secret}") else {
            return nil
        }
        var values: [String: String] = [:]
        for field in fields {
            values[field.key] = string(field.value, join(path, field.key))
        }
        guard let username = values["username"], let password = values["password"] else {
            if fields.count < 2 { report(node, path, "expected both username and password") }
            return nil
        }
        return .basicAuth(username: username, password: password)
    }

    /// `{ equals: text }`, `{ contains: text }` or `{ json: any }`.
    private mutating func parseBodyTest(_ node: Node, path: String) -> RequestMatcher? {
        guard let test = singleEntry(
            node, path, allowed: ["equals", "contains", "json", "jsonPath"],
            expected: "{equals: text}, {contains: text}, {json: value} or {jsonPath: $.path}"
        ) else { return nil }
        let testPath = join(path, test.key)
        switch test.key {
        case "equals": return string(test.value, testPath).map { .body($0) }
        case "contains": return string(test.value, testPath).map { .body(containing: $0) }
        case "jsonPath":
            guard let text = string(test.value, testPath, expected: "a JSONPath such as $.images[0].id") else { return nil }
            do {
                return .jsonBody(path: try JSONPath(text))
            } catch {
                report(test.value, testPath, error.description)
                return nil
            }
        default: return json(test.value, testPath).map { .jsonBody($0) }
        }
    }
}
