import Foundation

extension RequestMatcher {
    /// A cookie of this name is sent (in any `Cookie` header).
    public static func cookie(_ name: String) -> RequestMatcher {
        RequestMatcher(.cookie(name: name, test: .present))
    }

    /// A cookie of this name has exactly this value.
    public static func cookie(_ name: String, value: String) -> RequestMatcher {
        RequestMatcher(.cookie(name: name, test: .equals(value)))
    }

    /// A cookie's value contains `substring` (case-sensitive).
    public static func cookie(_ name: String, contains substring: String) -> RequestMatcher {
        RequestMatcher(.cookie(name: name, test: .contains(substring)))
    }

    /// A cookie's value matches a regular expression; throws ``MatcherError`` for an invalid pattern.
    public static func cookie(_ name: String, validatingPattern pattern: String) throws -> RequestMatcher {
        RequestMatcher(.cookie(name: name, test: .pattern(try PatternBox(pattern))))
    }

    /// No cookie of this name is sent.
    public static func cookieAbsent(_ name: String) -> RequestMatcher {
        RequestMatcher(.cookie(name: name, test: .absent))
    }

    /// No value of a header matches a regular expression (a request without the header passes,
    /// as with WireMock's `doesNotMatch`); throws ``MatcherError`` for an invalid pattern.
    public static func header(_ name: String, notMatching pattern: String) throws -> RequestMatcher {
        RequestMatcher(.header(name: name, test: .notPattern(try PatternBox(pattern))))
    }

    /// HTTP Basic credentials: `Authorization: Basic base64(username:password)`, as WireMock's
    /// `basicAuthCredentials` compares them.
    public static func basicAuth(username: String, password: String) -> RequestMatcher {
        .header("Authorization", value: "Basic " + Data("\(username):\(password)".utf8).base64EncodedString())
    }
}

extension StubRequest {
    /// The values of the cookies named `name`, from every `Cookie` header, in order
    /// (`a=1; b=2`; names are case-sensitive, values kept as sent).
    func cookieValues(named name: String) -> [String] {
        var values: [String] = []
        for header in headers.values(for: "Cookie") {
            for pair in header.split(separator: ";") {
                let trimmed = pair.drop { $0 == " " }
                guard let equals = trimmed.firstIndex(of: "=") else { continue }
                if trimmed[..<equals].trimmingCharacters(in: .whitespaces) == name {
                    values.append(trimmed[trimmed.index(after: equals)...].trimmingCharacters(in: .whitespaces))
                }
            }
        }
        return values
    }
}
