import Foundation
internal import Yams

extension WireMockParser {
    /// What a value test of a mapping reads: a header's values, a query parameter's (form-decoded,
    /// as WireMock reads them), a path parameter of the `urlPathTemplate`, a cookie's, the host.
    enum Subject {
        case header(String)
        case query(String)
        case pathParameter(String, PathTemplate)
        case cookie(String)
        case host
        case jsonPath(JSONPath)

        /// How near misses name it: `header X-Id`, `cookie session`.
        var words: String {
            switch self {
            case .header(let name): return "header \(name)"
            case .query(let name): return "query \(name)"
            case .pathParameter(let name, _): return "path parameter \(name)"
            case .cookie(let name): return "cookie \(name)"
            case .host: return "host"
            case .jsonPath(let path): return "JSON body at \(path)"
            }
        }

        /// The request's values for it, as WireMock reads them.
        func values(in request: StubRequest) -> [String] {
            switch self {
            case .header(let name): return request.headers.values(for: name)
            case .query(let name): return request.wireMockQuery.filter { $0.name == name }.map(\.value)
            case .pathParameter(let name, let template): return template.parameters(in: request.wireMockPath)?[name].map { [$0] } ?? []
            case .cookie(let name): return request.cookieValues(named: name)
            case .host: return [request.host]
            case .jsonPath(let path):
                guard let body = request.body, let json = try? JSONValue(parsing: body) else { return [] }
                let found = path.evaluate(json)
                guard let selected = path.isDefinite ? found.first : .array(found) else { return [] }
                return [JSONPath.text(of: selected)]
            }
        }

        /// The shared matcher node for a test that has one (headers, cookies, path parameters),
        /// which stub files and the Swift API build too.
        func node(_ test: RequestMatcher.HeaderTest) -> RequestMatcher? {
            switch self {
            case .header(let name): return RequestMatcher(.header(name: name, test: test))
            case .cookie(let name): return RequestMatcher(.cookie(name: name, test: test))
            case .pathParameter(let name, let template): return RequestMatcher(.pathParameter(name: name, template: template, test: test))
            case .jsonPath(let path): return RequestMatcher(.jsonPath(path, test: test))
            case .query, .host: return nil
            }
        }
    }

    /// The tests a header, query parameter, cookie, path parameter or host may have
    /// (`caseInsensitive` only beside `equalTo`).
    static let valueTests = [
        "equalTo", "contains", "matches", "doesNotMatch", "absent", "caseInsensitive", "and", "or", "hasExactly", "includes",
    ]
    static let valueOperators = "equalTo, contains, matches, doesNotMatch, absent, and, or, hasExactly or includes"

    /// One value test: `{"equalTo": "x"}` (optionally `"caseInsensitive": true`),
    /// `{"contains": "x"}`, `{"matches": "re"}`, `{"doesNotMatch": "re"}`, `{"absent": true}`,
    /// `{"and": [tests]}`, `{"or": [tests]}`, and WireMock 3's `{"hasExactly": [tests]}` and
    /// `{"includes": [tests]}` over all the values of a repeated header or query parameter.
    mutating func valueMatcher(_ node: Node, _ path: String, subject: Subject, besides: [String] = []) -> RequestMatcher? {
        guard let (test, testPath, caseInsensitive) = singleTest(
            node, path, supported: Self.valueTests, example: "{\"equalTo\": \"value\"}", operators: Self.valueOperators, besides: besides
        ) else { return nil }

        switch test.key {
        case "absent":
            guard let absent = bool(test.value, testPath) else { return nil }
            guard absent else {
                report(test.value, testPath, "found false; expected true (WireMock 2.35.1 reads any 'absent' as absent: leave the test out instead)")
                return nil
            }
            switch subject {
            case .pathParameter(let name, _):
                report(test.keyNode, testPath, "path parameter '\(name)' is in every path the template fits; expected equalTo, contains or matches")
                return nil
            case .host:
                report(test.keyNode, testPath, "every request has a host; expected equalTo, contains or matches")
                return nil
            case .header, .cookie, .jsonPath:
                return subject.node(.absent)
            case .query(let name):
                return .custom("query \(name) is absent") { request in !request.wireMockQuery.contains { $0.name == name } }
            }
        case "and", "or":
            guard let items = testList(test, testPath) else { return nil }
            let parts = items.enumerated().compactMap { index, item in valueMatcher(item, "\(testPath)[\(index)]", subject: subject) }
            guard parts.count == items.count else { return nil }
            return test.key == "and" ? .all(parts) : .anyOf(parts)
        case "hasExactly", "includes":
            return multiValueMatcher(test, testPath, subject: subject)
        default:
            break
        }

        guard let expected = string(test.value, testPath, expected: ["matches", "doesNotMatch"].contains(test.key) ? "a regular expression" : "a string") else {
            return nil
        }
        let headerTest: RequestMatcher.HeaderTest
        switch test.key {
        case "equalTo" where caseInsensitive:
            let folded = expected.lowercased()
            return valueTestMatcher(subject, "is \(expected) (any case)") { $0.lowercased() == folded }
        case "equalTo":
            headerTest = .equals(expected)
        case "contains":
            headerTest = .contains(expected)
        default:
            guard let box = wholeMatch(expected, test.value, testPath) else { return nil }
            headerTest = test.key == "matches" ? .pattern(box) : .notPattern(box)
        }
        if let shared = subject.node(headerTest) { return shared }
        return valueTestMatcher(subject, headerTest.words) { headerTest.passes([$0]) }
    }

    /// A test of the subject's values with WireMock's rule for one pattern over several values:
    /// it passes when any value does (`doesNotMatch` also when there is none).
    private func valueTestMatcher(_ subject: Subject, _ words: String, _ test: @escaping @Sendable (String) -> Bool) -> RequestMatcher {
        let negative = words.hasPrefix("does not match")
        return .custom("\(subject.words) \(words)") { request in
            let values = subject.values(in: request)
            return (negative && values.isEmpty) || values.contains(where: test)
        }
    }

    /// `hasExactly` (every value passes one of the tests, each test passed by a value, as many
    /// values as tests) or `includes` (each test passed by some value), WireMock 3's.
    private mutating func multiValueMatcher(_ test: Entry, _ path: String, subject: Subject) -> RequestMatcher? {
        guard let items = testList(test, path) else { return nil }
        switch subject {
        case .pathParameter, .host, .jsonPath:
            report(test.keyNode, path, "\(subject.words) has one value; expected equalTo, contains or matches")
            return nil
        case .header, .query, .cookie:
            break
        }
        // Each test on one value alone: a header named `value` of a request made of it.
        let tests = items.enumerated().compactMap { index, item in valueMatcher(item, "\(path)[\(index)]", subject: .header("value")) }
        guard tests.count == items.count else { return nil }
        return multiValue(test.key, tests, subject)
    }

    private func multiValue(_ key: String, _ tests: [RequestMatcher], _ subject: Subject) -> RequestMatcher {
        let description = "\(subject.words) \(key == "hasExactly" ? "has exactly" : "includes") [\(tests.map { $0.description.replacingOccurrences(of: "header value ", with: "") }.joined(separator: ", "))]"
        return .custom(description) { request in
            let values = subject.values(in: request).map { StubRequest(url: URL(string: "http://value.invalid/")!, headers: ["value": $0]) }
            let everyTestPassed = tests.allSatisfy { test in values.contains { test.matches($0) } }
            guard key == "hasExactly" else { return everyTestPassed }
            return everyTestPassed && values.count == tests.count && values.allSatisfy { value in tests.contains { $0.matches(value) } }
        }
    }

    /// The array of tests of `and`, `or`, `hasExactly` or `includes`.
    private mutating func testList(_ test: Entry, _ path: String) -> [Node]? {
        guard case .sequence(let items) = test.value, !items.isEmpty else {
            reportMismatch(test.value, path, expected: "a non-empty array of tests such as [{\"equalTo\": \"a\"}, {\"contains\": \"b\"}]")
            return nil
        }
        return Array(items)
    }

    /// The one test of a matcher object such as `{"equalTo": "x", "caseInsensitive": true}`, its
    /// path, and whether it ignores case (which only `equalTo` takes). `nil` (reported) when the
    /// object holds no test or several, or any issue.
    /// Fields named in `besides` are options of the object, read by the caller, not tests.
    mutating func singleTest(
        _ node: Node, _ path: String, supported: [String], example: String, operators: String, besides: [String] = []
    ) -> (test: Entry, path: String, caseInsensitive: Bool)? {
        let issuesBefore = issues.count
        guard let fields = fields(node, path, supported: supported + besides, expected: "an object such as \(example)")?
            .filter({ !besides.contains($0.key) })
        else {
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
}
