import Foundation
internal import Yams

extension StubFileParser {
    static let requestKeys = [
        "method", "scheme", "host", "path", "pathPrefix", "pathPattern", "extension", "query", "headers",
        "accepts", "body",
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
                parts += parseHeaderTests(field.value, path: fieldPath)
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

    /// `{ X-Client: ios, Accept: { contains: image/webp } }`.
    private mutating func parseHeaderTests(_ node: Node, path: String) -> [RequestMatcher] {
        guard let fields = entries(node, path, allowed: nil, expected: "a mapping of header names to tests") else {
            return []
        }
        let expected = "a value, {contains: text}, {pattern: regex} or {present: true|false}"
        return fields.compactMap { field in
            let itemPath = join(path, field.key)
            guard field.value.kind == .mapping else {
                return string(field.value, itemPath, expected: expected).map { .header(field.key, value: $0) }
            }
            guard let test = singleEntry(field.value, itemPath, allowed: ["contains", "pattern", "present"], expected: expected)
            else { return nil }
            let testPath = join(itemPath, test.key)
            switch test.key {
            case "contains":
                return string(test.value, testPath).map { .header(field.key, contains: $0) }
            case "pattern":
                guard let pattern = string(test.value, testPath, expected: "a regular expression") else { return nil }
                do {
                    return try .header(field.key, validatingPattern: pattern)
                } catch {
                    report(test.value, testPath, "\(error)")
                    return nil
                }
            default:
                guard test.value.kind == .bool, let present = test.value.bool else {
                    reportMismatch(test.value, testPath, expected: "true or false")
                    return nil
                }
                return present ? .header(field.key) : .headerAbsent(field.key)
            }
        }
    }

    /// `{ equals: text }`, `{ contains: text }` or `{ json: any }`.
    private mutating func parseBodyTest(_ node: Node, path: String) -> RequestMatcher? {
        guard let test = singleEntry(
            node, path, allowed: ["equals", "contains", "json"], expected: "{equals: text}, {contains: text} or {json: value}"
        ) else { return nil }
        let testPath = join(path, test.key)
        switch test.key {
        case "equals": return string(test.value, testPath).map { .body($0) }
        case "contains": return string(test.value, testPath).map { .body(containing: $0) }
        default: return json(test.value, testPath).map { .jsonBody($0) }
        }
    }
}
