import Foundation

/// A test on a request, combinable with `&&`, `||` and `!`, that can say why it did not match.
///
/// ```swift
/// let webp: RequestMatcher = .host("*.example.com") && .pathExtension("webp") && .method("GET")
/// webp.matches(request)        // Bool
/// webp.mismatches(for: request) // [Mismatch]: empty when it matches
/// ```
///
/// Methods, schemes and media types are plain strings; methods and schemes compare
/// case-insensitively. A matcher for `GET` also matches `HEAD`.
public struct RequestMatcher: Sendable, CustomStringConvertible {
    indirect enum Node: Sendable {
        case any
        case scheme(String)
        case host(HostPattern)
        case path(String)
        case pathPrefix(String)
        case pathPattern(PatternBox)
        case pathExtension(String)
        case pathTemplate(PathTemplate)
        case pathParameter(name: String, template: PathTemplate, test: HeaderTest)
        case method(String)
        case query(name: String, value: String?)
        case header(name: String, test: HeaderTest)
        case cookie(name: String, test: HeaderTest)
        case accepts(String)
        case body(Data)
        case bodyContains(Data)
        case jsonBody(JSONValue, JSONComparison)
        /// A JSONPath over the JSON body: it selects something, or what it selects (as text) passes `test`.
        case jsonPath(JSONPath, test: HeaderTest?)
        case custom(name: String, test: @Sendable (StubRequest) -> Bool)
        case and([Node])
        case or([Node])
        case not(Node)
    }

    /// How a header's value (or a path parameter's) is tested.
    enum HeaderTest: Sendable {
        case present
        case absent
        case equals(String)
        case contains(String)
        case pattern(PatternBox)
        /// No value matches: passes when there is none at all, as WireMock's `doesNotMatch`.
        case notPattern(PatternBox)
    }

    let node: Node

    init(_ node: Node) {
        self.node = node
    }

    // MARK: - Matchers

    /// Matches every request.
    public static let any = RequestMatcher(.any)

    /// The URL's scheme, case-insensitive: `.scheme("https")`.
    public static func scheme(_ scheme: String) -> RequestMatcher {
        RequestMatcher(.scheme(scheme.lowercased()))
    }

    /// The host, case-insensitive, port ignored; `*.example.com` matches any depth of
    /// subdomain but not `example.com` itself.
    public static func host(_ host: String) -> RequestMatcher {
        RequestMatcher(.host(HostPattern(host)))
    }

    /// The exact path, percent-decoded, without query: `.path("/cats/1.webp")`.
    public static func path(_ path: String) -> RequestMatcher {
        RequestMatcher(.path(path))
    }

    /// Paths that start with `prefix`.
    public static func pathPrefix(_ prefix: String) -> RequestMatcher {
        RequestMatcher(.pathPrefix(prefix))
    }

    /// Paths matching a regular expression (ICU syntax, unanchored unless you anchor it).
    ///
    /// An invalid pattern is a programming error and traps with the reason; use
    /// ``path(validating:)`` for patterns that come from input.
    public static func path(matching pattern: String) -> RequestMatcher {
        do {
            return try path(validating: pattern)
        } catch {
            preconditionFailure("\(error)")
        }
    }

    /// Paths matching a regular expression; throws ``MatcherError`` for an invalid pattern.
    public static func path(validating pattern: String) throws -> RequestMatcher {
        RequestMatcher(.pathPattern(try PatternBox(pattern)))
    }

    /// The path's extension, case-insensitive, ignoring query and fragment: `.pathExtension("webp")`.
    public static func pathExtension(_ ext: String) -> RequestMatcher {
        RequestMatcher(.pathExtension(ext.lowercased().trimmingPrefix(".")))
    }

    /// Paths (as sent, percent-encoded, without query) that fit a WireMock 3 path template
    /// such as `/images/{id}`: `.path(template: try PathTemplate("/images/{id}"))`.
    public static func path(template: PathTemplate) -> RequestMatcher {
        RequestMatcher(.pathTemplate(template))
    }

    /// The path fits `template` and its parameter `name` is exactly `value`.
    public static func pathParameter(_ name: String, of template: PathTemplate, is value: String) -> RequestMatcher {
        RequestMatcher(.pathParameter(name: name, template: template, test: .equals(value)))
    }

    /// The path fits `template` and its parameter `name` matches a regular expression (ICU
    /// syntax, unanchored unless you anchor it); throws ``MatcherError`` for an invalid pattern.
    public static func pathParameter(_ name: String, of template: PathTemplate, validatingPattern pattern: String) throws -> RequestMatcher {
        RequestMatcher(.pathParameter(name: name, template: template, test: .pattern(try PatternBox(pattern))))
    }

    /// The method, case-insensitive. `GET` also matches `HEAD`.
    public static func method(_ method: String) -> RequestMatcher {
        RequestMatcher(.method(method.uppercased()))
    }

    /// A query item: present with any value when `value` is `nil`, else with that value
    /// (with repeated keys, any of them). A key given without `=` has the empty value.
    public static func query(_ name: String, _ value: String? = nil) -> RequestMatcher {
        RequestMatcher(.query(name: name, value: value))
    }

    /// A header is present (name case-insensitive).
    public static func header(_ name: String) -> RequestMatcher {
        RequestMatcher(.header(name: name, test: .present))
    }

    /// A header has exactly this value.
    public static func header(_ name: String, value: String) -> RequestMatcher {
        RequestMatcher(.header(name: name, test: .equals(value)))
    }

    /// A header's value contains `substring` (case-sensitive).
    public static func header(_ name: String, contains substring: String) -> RequestMatcher {
        RequestMatcher(.header(name: name, test: .contains(substring)))
    }

    /// A header's value matches a regular expression; throws ``MatcherError`` for an invalid pattern.
    public static func header(_ name: String, validatingPattern pattern: String) throws -> RequestMatcher {
        RequestMatcher(.header(name: name, test: .pattern(try PatternBox(pattern))))
    }

    /// The request has no header of this name.
    public static func headerAbsent(_ name: String) -> RequestMatcher {
        RequestMatcher(.header(name: name, test: .absent))
    }

    /// The Accept header admits `mediaType` with q > 0 (the most specific range wins;
    /// a request without Accept admits anything).
    public static func accepts(_ mediaType: String) -> RequestMatcher {
        RequestMatcher(.accepts(mediaType.lowercased()))
    }

    /// The body is exactly these bytes.
    public static func body(_ data: Data) -> RequestMatcher {
        RequestMatcher(.body(data))
    }

    /// The body is exactly this UTF-8 text.
    public static func body(_ text: String) -> RequestMatcher {
        RequestMatcher(.body(Data(text.utf8)))
    }

    /// The body contains this UTF-8 text.
    public static func body(containing text: String) -> RequestMatcher {
        RequestMatcher(.bodyContains(Data(text.utf8)))
    }

    /// The body is JSON equal to `json` (object key order ignored).
    public static func jsonBody(_ json: JSONValue) -> RequestMatcher {
        RequestMatcher(.jsonBody(json, .exact))
    }

    /// The body is JSON matching `json` under `comparison` (WireMock's `equalToJson` options).
    public static func jsonBody(_ json: JSONValue, _ comparison: JSONComparison) -> RequestMatcher {
        RequestMatcher(.jsonBody(json, comparison))
    }

    /// The body is JSON in which `path` selects something, as WireMock's `matchesJsonPath`: a
    /// definite path (`$.a.b`) a value that is not null nor an empty array or object, another
    /// path at least one value.
    public static func jsonBody(path: JSONPath) -> RequestMatcher {
        RequestMatcher(.jsonPath(path, test: nil))
    }

    /// The body is JSON in which what `path` selects, as text, is exactly `value` (a string as
    /// itself, a number as `2` or `2.5`, anything else as compact JSON).
    public static func jsonBody(path: JSONPath, is value: String) -> RequestMatcher {
        RequestMatcher(.jsonPath(path, test: .equals(value)))
    }

    /// Any test of yours, named for near-miss reports.
    ///
    /// The test may read state other than the request (a "logged in" flag): while a stub has
    /// one, the server matches each request anew, even one identical to the last on the same
    /// connection, so a changed answer shows at once.
    /// - Parameters:
    ///   - name: how reports describe the test, e.g. "has a session cookie".
    ///   - test: returns whether the request passes.
    public static func custom(_ name: String, _ test: @escaping @Sendable (StubRequest) -> Bool) -> RequestMatcher {
        RequestMatcher(.custom(name: name, test: test))
    }

    // MARK: - Combinators

    /// Both must match.
    public static func && (lhs: RequestMatcher, rhs: RequestMatcher) -> RequestMatcher {
        switch (lhs.node, rhs.node) {
        case (.any, _): return rhs
        case (_, .any): return lhs
        case (.and(let l), .and(let r)): return RequestMatcher(.and(l + r))
        case (.and(let l), _): return RequestMatcher(.and(l + [rhs.node]))
        case (_, .and(let r)): return RequestMatcher(.and([lhs.node] + r))
        default: return RequestMatcher(.and([lhs.node, rhs.node]))
        }
    }

    /// Either may match.
    public static func || (lhs: RequestMatcher, rhs: RequestMatcher) -> RequestMatcher {
        switch (lhs.node, rhs.node) {
        case (.or(let l), .or(let r)): return RequestMatcher(.or(l + r))
        case (.or(let l), _): return RequestMatcher(.or(l + [rhs.node]))
        case (_, .or(let r)): return RequestMatcher(.or([lhs.node] + r))
        default: return RequestMatcher(.or([lhs.node, rhs.node]))
        }
    }

    /// Matches what `matcher` does not.
    public static prefix func ! (matcher: RequestMatcher) -> RequestMatcher {
        RequestMatcher(.not(matcher.node))
    }

    /// All of `matchers` must match (`.any` when empty).
    public static func all(_ matchers: [RequestMatcher]) -> RequestMatcher {
        matchers.reduce(.any, &&)
    }

    /// At least one of `matchers` must match.
    public static func anyOf(_ matchers: [RequestMatcher]) -> RequestMatcher {
        guard let first = matchers.first else { return !.any }
        return matchers.dropFirst().reduce(first, ||)
    }

    // MARK: - Evaluation

    /// Whether `request` matches.
    public func matches(_ request: StubRequest) -> Bool {
        node.matches(request)
    }

    /// The parts of this matcher that `request` fails, each with what the request had instead;
    /// empty when the request matches.
    public func mismatches(for request: StubRequest) -> [Mismatch] {
        parts.compactMap { $0.mismatch(for: request) }
    }

    /// The parts a near-miss report counts: the terms of the top-level conjunction.
    var parts: [Node] {
        switch node {
        case .any: return []
        case .and(let nodes): return nodes.flatMap { RequestMatcher($0).parts }
        default: return [node]
        }
    }

    /// How the matcher reads, e.g. `host is img.example.com and extension is webp`.
    public var description: String {
        node.description
    }
}

/// One part of a matcher that a request failed, with what the request had instead.
public struct Mismatch: Sendable, Hashable, CustomStringConvertible {
    /// The part that failed, e.g. `host is img.example.com`.
    public let expected: String
    /// What the request had, e.g. `cdn.example.com`.
    public let actual: String

    /// Creates a mismatch.
    public init(expected: String, actual: String) {
        self.expected = expected
        self.actual = actual
    }

    /// `host is img.example.com (got cdn.example.com)`.
    public var description: String {
        "\(expected) (got \(actual))"
    }
}

/// An invalid matcher given as input: a regular expression that does not compile.
public struct MatcherError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The pattern as given.
    public let pattern: String
    /// Why it was refused.
    public let reason: String

    public var description: String {
        "invalid regular expression '\(pattern)': \(reason)"
    }
}

/// A host to match: exact, or `*.suffix` for any depth of subdomain.
package struct HostPattern: Sendable, Hashable, CustomStringConvertible {
    /// The lowercased host, or for a glob the suffix with its leading dot (`.example.com`).
    let value: String
    let isGlob: Bool

    package init(_ pattern: String) {
        let lowered = pattern.lowercased()
        if lowered.hasPrefix("*.") {
            value = String(lowered.dropFirst())
            isGlob = true
        } else {
            value = lowered
            isGlob = false
        }
    }

    package func matches(_ host: String) -> Bool {
        isGlob ? host.hasSuffix(value) && host.utf8.count > value.utf8.count : host == value
    }

    package var description: String {
        isGlob ? "*" + value : value
    }
}

/// A compiled regular expression; `NSRegularExpression` is immutable and documented thread-safe.
final class PatternBox: @unchecked Sendable {
    let pattern: String
    let regex: NSRegularExpression

    init(_ pattern: String) throws {
        self.pattern = pattern
        do {
            regex = try NSRegularExpression(pattern: pattern)
        } catch {
            throw MatcherError(pattern: pattern, reason: PatternBox.reason(for: error))
        }
    }

    private static func reason(for error: any Error) -> String {
        let nsError = error as NSError
        if let detail = nsError.userInfo["NSInvalidValue"] as? String { return "not a valid pattern (\(detail))" }
        return "not a valid ICU regular expression"
    }

    func matches(_ text: String) -> Bool {
        let range = NSRange(text.startIndex..<text.endIndex, in: text)
        return regex.firstMatch(in: text, options: [], range: range) != nil
    }
}

extension String {
    func trimmingPrefix(_ prefix: String) -> String {
        hasPrefix(prefix) ? String(dropFirst(prefix.count)) : self
    }
}
