import Foundation
internal import Yams

extension WireMockParser {
    static let requestFields = [
        "method", "url", "urlPath", "urlPattern", "urlPathPattern", "urlPathTemplate", "pathParameters", "scheme", "host", "port",
        "headers", "queryParameters", "cookies", "basicAuthCredentials", "bodyPatterns",
    ]
    static let urlFields = ["url", "urlPath", "urlPattern", "urlPathPattern", "urlPathTemplate"]
    static let bodyTests = ["equalTo", "contains", "equalToJson", "matchesJsonPath", "caseInsensitive"]
    /// `equalToJson`'s options.
    static let jsonOptions = ["ignoreArrayOrder", "ignoreExtraElements"]

    /// The `request` object as one matcher, with WireMock 2.35.1's semantics: `url` and
    /// `urlPattern` see path and query as sent (percent-encoded), `urlPath` and `urlPathPattern`
    /// the path alone; patterns match the whole text; methods are exact (`GET` is not `HEAD`).
    mutating func parseRequest(_ node: Node, path: String) -> RequestMatcher? {
        let issuesBefore = issues.count
        guard let fields = fields(node, path, supported: Self.requestFields, expected: "a request object") else { return nil }
        var parts: [RequestMatcher] = []
        var urlField: String?
        var pathTemplate: PathTemplate?
        var pathParameters: Entry?
        for field in fields {
            let fieldPath = join(path, field.key)
            switch field.key {
            case "method":
                if let method = string(field.value, fieldPath, expected: "a method such as GET, or ANY") {
                    parts += methodMatchers(method, field.value, fieldPath)
                }
            case _ where Self.urlFields.contains(field.key):
                if let first = urlField {
                    report(field.keyNode, fieldPath, "found both '\(first)' and '\(field.key)'; expected one of \(Self.urlFields.joined(separator: ", "))")
                    continue
                }
                urlField = field.key
                if field.key == "urlPathTemplate" {
                    // WireMock 3's; WireMock 2.35 predates it.
                    guard let text = string(field.value, fieldPath, expected: "a path template such as /images/{id}") else { continue }
                    do {
                        let template = try PathTemplate(text)
                        pathTemplate = template
                        parts.append(.path(template: template))
                    } catch {
                        report(field.value, fieldPath, error.description)
                    }
                    continue
                }
                if let text = string(field.value, fieldPath, expected: field.key.hasSuffix("Pattern") ? "a regular expression" : "a URL path") {
                    parts += urlMatchers(field.key, text, field.value, fieldPath)
                }
            case "pathParameters":
                pathParameters = field
            case "headers":
                for header in self.fields(field.value, fieldPath, supported: nil, expected: "an object of header names to tests") ?? [] {
                    if let matcher = valueMatcher(header.value, join(fieldPath, header.key), subject: .header(header.key)) {
                        parts.append(matcher)
                    }
                }
            case "scheme":
                guard let scheme = string(field.value, fieldPath, expected: "http or https") else { continue }
                guard ["http", "https"].contains(scheme) else {
                    report(field.value, fieldPath, "scheme '\(scheme)' would never match; expected http or https")
                    continue
                }
                parts.append(.scheme(scheme))
            case "host":
                if let matcher = valueMatcher(field.value, fieldPath, subject: .host) { parts.append(matcher) }
            case "port":
                guard let port = integer(field.value, fieldPath, expected: "a port number from 1 to 65535", minimum: 1) else { continue }
                guard port <= 65_535 else {
                    report(field.value, fieldPath, "port \(port) is out of range; expected a port number from 1 to 65535")
                    continue
                }
                // The port the request was sent to: its Host's, else the scheme's default, as WireMock reads it.
                parts.append(.custom("port is \(port)") { request in (request.port ?? (request.scheme == "https" ? 443 : 80)) == port })
            case "cookies":
                for cookie in self.fields(field.value, fieldPath, supported: nil, expected: "an object of cookie names to tests") ?? [] {
                    if let matcher = valueMatcher(cookie.value, join(fieldPath, cookie.key), subject: .cookie(cookie.key)) {
                        parts.append(matcher)
                    }
                }
            case "basicAuthCredentials":
                if let matcher = basicAuthMatcher(field.value, fieldPath) { parts.append(matcher) }
            case "queryParameters":
                for parameter in self.fields(field.value, fieldPath, supported: nil, expected: "an object of parameter names to tests") ?? [] {
                    if let matcher = valueMatcher(parameter.value, join(fieldPath, parameter.key), subject: .query(parameter.key)) {
                        parts.append(matcher)
                    }
                }
            case "bodyPatterns":
                guard case .sequence(let patterns) = field.value else {
                    reportMismatch(field.value, fieldPath, expected: "an array of body patterns")
                    continue
                }
                for (index, pattern) in patterns.enumerated() {
                    if let matcher = bodyMatcher(pattern, "\(fieldPath)[\(index)]") { parts.append(matcher) }
                }
            default:
                preconditionFailure("field '\(field.key)' is supported but not handled")
            }
        }
        if let pathParameters {
            parts += parsePathParameters(pathParameters, template: pathTemplate, urlField: urlField, path: join(path, "pathParameters"))
        }
        return issues.count == issuesBefore ? .all(parts) : nil
    }

    /// `{"username": "u", "password": "p"}`, compared as WireMock does: the `Authorization`
    /// header is exactly `Basic` and the pair in base64.
    private mutating func basicAuthMatcher(_ node: Node, _ path: String) -> RequestMatcher? {
        var values: [String: String] = [:]
        let fields = fields(node, path, supported: ["username", "password"], expected: "an object with username and password") ?? []
        for field in fields {
            values[field.key] = string(field.value, join(path, field.key))
        }
        guard let username = values["username"], let password = values["password"] else {
            if fields.count < 2 { report(node, path, "expected both username and password") }
            return nil
        }
        return .basicAuth(username: username, password: password)
    }

    /// `pathParameters`: a test per parameter of the mapping's `urlPathTemplate`, each named.
    private mutating func parsePathParameters(_ field: Entry, template: PathTemplate?, urlField: String?, path: String) -> [RequestMatcher] {
        guard let template else {
            // A urlPathTemplate that did not parse is reported already.
            if urlField != "urlPathTemplate" {
                report(field.keyNode, path, "pathParameters needs a urlPathTemplate naming them (found \(urlField.map { "'\($0)'" } ?? "no URL field")); expected a urlPathTemplate such as /images/{id}")
            }
            return []
        }
        var parts: [RequestMatcher] = []
        for parameter in fields(field.value, path, supported: nil, expected: "an object of path parameter names to tests") ?? [] {
            let parameterPath = join(path, parameter.key)
            guard template.parameterNames.contains(parameter.key) else {
                report(parameter.keyNode, parameterPath, "no parameter '\(parameter.key)' in urlPathTemplate \(template); expected one of \(template.parameterNames.joined(separator: ", "))")
                continue
            }
            if let matcher = valueMatcher(parameter.value, parameterPath, subject: .pathParameter(parameter.key, template)) {
                parts.append(matcher)
            }
        }
        return parts
    }

    // MARK: - Method and URL

    private mutating func methodMatchers(_ method: String, _ node: Node, _ path: String) -> [RequestMatcher] {
        if method == "ANY" { return [] }
        guard !method.isEmpty, method == method.uppercased() else {
            report(node, path, "method '\(method)' would never match (WireMock compares methods case-sensitively); expected \(method.uppercased()) or ANY")
            return []
        }
        // Understudy's `.method("GET")` also admits HEAD; WireMock's does not.
        return method == "GET" ? [.method("GET"), !.method("HEAD")] : [.method(method)]
    }

    private mutating func urlMatchers(_ key: String, _ text: String, _ node: Node, _ path: String) -> [RequestMatcher] {
        switch key {
        case "url", "urlPath":
            guard text.hasPrefix("/") else {
                report(node, path, "'\(text)' does not start with '/'; expected a path like /\(text)")
                return []
            }
            let pathPart = text.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? text
            // The decoded path lets the registry's index find the stub; the test on the text as
            // sent is what decides, as in WireMock.
            var matchers: [RequestMatcher] = []
            if let decoded = pathPart.removingPercentEncoding { matchers.append(.path(decoded)) }
            if key == "url" {
                matchers.append(.custom("URL is \(text)") { $0.wireMockURL == text })
            } else {
                matchers.append(.custom("URL path is \(text)") { $0.wireMockPath == text })
            }
            return matchers
        default:
            guard let box = wholeMatch(text, node, path) else { return [] }
            if key == "urlPattern" {
                return [.custom("URL matches \(text)") { box.matches($0.wireMockURL) }]
            }
            return [.custom("URL path matches \(text)") { box.matches($0.wireMockPath) }]
        }
    }

    /// A regular expression that must match the whole text, as Java's `Matcher.matches()`.
    mutating func wholeMatch(_ pattern: String, _ node: Node, _ path: String) -> PatternBox? {
        do {
            _ = try PatternBox(pattern)
            return try PatternBox("\\A(?:" + pattern + ")\\z")
        } catch {
            report(node, path, "\(error)")
            return nil
        }
    }

    // MARK: - Body

    /// `{"equalTo": "text"}` (optionally `"caseInsensitive": true`), `{"contains": "text"}` or
    /// `{"equalToJson": json}` (a JSON value, or a string holding one).
    private mutating func bodyMatcher(_ node: Node, _ path: String) -> RequestMatcher? {
        guard let (test, testPath, caseInsensitive) = singleTest(
            node, path, supported: Self.bodyTests, example: "{\"equalTo\": \"text\"}", operators: "equalTo, contains, equalToJson or matchesJsonPath",
            besides: Self.jsonOptions
        ) else { return nil }
        var comparison = JSONComparison.exact
        if case .mapping(let object) = node {
            for option in Self.jsonOptions {
                guard let value = object[option] else { continue }
                guard test.key == "equalToJson" else {
                    report(value, join(path, option), "only applies to equalToJson; expected it beside equalToJson, not '\(test.key)'")
                    return nil
                }
                let flag = bool(value, join(path, option)) ?? false
                if option == "ignoreArrayOrder" { comparison.ignoresArrayOrder = flag } else { comparison.ignoresExtraElements = flag }
            }
        }
        switch test.key {
        case "equalTo":
            guard let text = string(test.value, testPath) else { return nil }
            guard caseInsensitive else { return .body(text) }
            let folded = text.lowercased()
            return .custom("body is \"\(text)\" (any case)") { request in
                String(decoding: request.body ?? Data(), as: UTF8.self).lowercased() == folded
            }
        case "contains":
            return string(test.value, testPath).map { .body(containing: $0) }
        case "matchesJsonPath":
            return jsonPathMatcher(test.value, testPath)
        default:
            let json: JSONValue?
            if WireMockJSON.kind(of: test.value) == .string, let text = test.value.scalar?.string {
                json = try? JSONValue(parsing: Data(text.utf8))
                if json == nil {
                    report(test.value, testPath, "the string is not JSON; expected JSON, or a string holding JSON")
                    return nil
                }
            } else {
                json = WireMockJSON.value(test.value)
                if json == nil {
                    report(test.value, testPath, "a number is too large; expected numbers a double can hold")
                    return nil
                }
            }
            guard let json else { return nil }
            if let placeholder = WireMockJSON.placeholder(in: json) {
                report(test.value, testPath, "JsonUnit placeholder '\(placeholder)' is unsupported; expected literal JSON values")
                return nil
            }
            return .jsonBody(json, comparison)
        }
    }

    /// `"$.path"` (it selects something) or `{"expression": "$.path", "equalTo": "x"}` with any
    /// value test.
    private mutating func jsonPathMatcher(_ node: Node, _ path: String) -> RequestMatcher? {
        func read(_ text: String, _ at: Node, _ atPath: String) -> JSONPath? {
            do {
                return try JSONPath(text)
            } catch {
                report(at, atPath, error.description)
                return nil
            }
        }
        if WireMockJSON.kind(of: node) == .string, let text = node.scalar?.string {
            return read(text, node, path).map { .jsonBody(path: $0) }
        }
        guard case .mapping(let object) = node, let expression = object["expression"] else {
            reportMismatch(node, path, expected: #"a JSONPath, or {"expression": "$.path", "equalTo": "value"}"#)
            return nil
        }
        guard let text = string(expression, join(path, "expression"), expected: "a JSONPath such as $.images[0].id"),
              let jsonPath = read(text, expression, join(path, "expression"))
        else { return nil }
        return valueMatcher(node, path, subject: .jsonPath(jsonPath), besides: ["expression"])
    }
}
