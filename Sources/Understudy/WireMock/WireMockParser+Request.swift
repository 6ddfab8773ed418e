import Foundation
internal import Yams

extension WireMockParser {
    static let requestFields = [
        "method", "url", "urlPath", "urlPattern", "urlPathPattern", "headers", "queryParameters", "bodyPatterns",
    ]
    static let urlFields = ["url", "urlPath", "urlPattern", "urlPathPattern"]
    /// The tests a header or query parameter may have (`caseInsensitive` only beside `equalTo`).
    static let valueTests = ["equalTo", "contains", "matches", "absent", "caseInsensitive"]
    static let bodyTests = ["equalTo", "contains", "equalToJson", "caseInsensitive"]

    /// The `request` object as one matcher, with WireMock 2.35.1's semantics: `url` and
    /// `urlPattern` see path and query as sent (percent-encoded), `urlPath` and `urlPathPattern`
    /// the path alone; patterns match the whole text; methods are exact (`GET` is not `HEAD`).
    mutating func parseRequest(_ node: Node, path: String) -> RequestMatcher? {
        let issuesBefore = issues.count
        guard let fields = fields(node, path, supported: Self.requestFields, expected: "a request object") else { return nil }
        var parts: [RequestMatcher] = []
        var urlField: String?
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
                if let text = string(field.value, fieldPath, expected: field.key.hasSuffix("Pattern") ? "a regular expression" : "a URL path") {
                    parts += urlMatchers(field.key, text, field.value, fieldPath)
                }
            case "headers":
                for header in self.fields(field.value, fieldPath, supported: nil, expected: "an object of header names to tests") ?? [] {
                    if let matcher = valueMatcher(header.value, join(fieldPath, header.key), subject: .header(header.key)) {
                        parts.append(matcher)
                    }
                }
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
        return issues.count == issuesBefore ? .all(parts) : nil
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
    private mutating func wholeMatch(_ pattern: String, _ node: Node, _ path: String) -> PatternBox? {
        do {
            _ = try PatternBox(pattern)
            return try PatternBox("\\A(?:" + pattern + ")\\z")
        } catch {
            report(node, path, "\(error)")
            return nil
        }
    }

    // MARK: - Headers and query parameters

    enum Subject {
        case header(String)
        case query(String)
    }

    /// `{"equalTo": "x"}` (optionally `"caseInsensitive": true`), `{"contains": "x"}`,
    /// `{"matches": "re"}` or `{"absent": true}`.
    private mutating func valueMatcher(_ node: Node, _ path: String, subject: Subject) -> RequestMatcher? {
        guard let (test, testPath, caseInsensitive) = singleTest(
            node, path, supported: Self.valueTests, example: "{\"equalTo\": \"value\"}", operators: "equalTo, contains, matches or absent"
        ) else { return nil }

        if test.key == "absent" {
            guard let absent = bool(test.value, testPath) else { return nil }
            guard absent else {
                report(test.value, testPath, "found false; expected true (WireMock 2.35.1 reads any 'absent' as absent: leave the test out instead)")
                return nil
            }
            switch subject {
            case .header(let name): return .headerAbsent(name)
            case .query(let name): return .custom("query \(name) is absent") { request in !request.wireMockQuery.contains { $0.name == name } }
            }
        }
        guard let expected = string(test.value, testPath, expected: test.key == "matches" ? "a regular expression" : "a string") else {
            return nil
        }
        let valueTest: @Sendable (String) -> Bool
        let words: String
        switch test.key {
        case "equalTo":
            if !caseInsensitive {
                if case .header(let name) = subject { return .header(name, value: expected) }
                valueTest = { $0 == expected }
                words = "is \(expected)"
            } else {
                let folded = expected.lowercased()
                valueTest = { $0.lowercased() == folded }
                words = "is \(expected) (any case)"
            }
        case "contains":
            if case .header(let name) = subject { return .header(name, contains: expected) }
            valueTest = { $0.contains(expected) }
            words = "contains \(expected)"
        default:
            guard let box = wholeMatch(expected, test.value, testPath) else { return nil }
            if case .header(let name) = subject {
                return try? .header(name, validatingPattern: box.pattern)
            }
            valueTest = { box.matches($0) }
            words = "matches \(expected)"
        }
        switch subject {
        case .header(let name):
            return .custom("header \(name) \(words)") { request in request.headers.values(for: name).contains(where: valueTest) }
        case .query(let name):
            return .custom("query \(name) \(words)") { request in
                request.wireMockQuery.contains { $0.name == name && valueTest($0.value) }
            }
        }
    }

    /// The one test of a matcher object such as `{"equalTo": "x", "caseInsensitive": true}`, its
    /// path, and whether it ignores case (which only `equalTo` takes). `nil` (reported) when the
    /// object holds no test or several, or any issue.
    private mutating func singleTest(
        _ node: Node, _ path: String, supported: [String], example: String, operators: String
    ) -> (test: Entry, path: String, caseInsensitive: Bool)? {
        let issuesBefore = issues.count
        guard let fields = fields(node, path, supported: supported, expected: "an object such as \(example)") else {
            return nil
        }
        var caseInsensitive = false
        var caseNode: Node?
        var tests: [Entry] = []
        for field in fields {
            if field.key == "caseInsensitive" {
                caseInsensitive = bool(field.value, join(path, field.key)) ?? false
                caseNode = field.keyNode
            } else {
                tests.append(field)
            }
        }
        guard tests.count == 1, let test = tests.first else {
            if issues.count == issuesBefore {
                reportNotExactlyOne(node, path, keys: tests.map(\.key), none: "no test", expected: operators)
            }
            return nil
        }
        if let caseNode, test.key != "equalTo" {
            report(caseNode, join(path, "caseInsensitive"), "only applies to equalTo; WireMock ignores it beside '\(test.key)'")
            return nil
        }
        guard issues.count == issuesBefore else { return nil }
        return (test, join(path, test.key), caseInsensitive)
    }

    // MARK: - Body

    /// `{"equalTo": "text"}` (optionally `"caseInsensitive": true`), `{"contains": "text"}` or
    /// `{"equalToJson": json}` (a JSON value, or a string holding one).
    private mutating func bodyMatcher(_ node: Node, _ path: String) -> RequestMatcher? {
        guard let (test, testPath, caseInsensitive) = singleTest(
            node, path, supported: Self.bodyTests, example: "{\"equalTo\": \"text\"}", operators: "equalTo, contains or equalToJson"
        ) else { return nil }
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
            return .jsonBody(json)
        }
    }
}
