import Foundation

extension RequestMatcher {
    /// The matcher as a WireMock request pattern, when every part has a WireMock equivalent
    /// (method, exact path, path prefix, anchored path pattern, query parameters, headers);
    /// `nil` when some part has none (host, scheme, extension, `Accept`, bodies, closures).
    ///
    /// `GET` is written as WireMock's `GET`, which, unlike Understudy's, does not admit `HEAD`.
    package var wireMockRequest: JSONValue? {
        var request: [String: JSONValue] = [:]
        var query: [String: JSONValue] = [:], headers: [String: JSONValue] = [:]
        for part in parts {
            switch part {
            case .method(let method) where request["method"] == nil:
                request["method"] = .string(method)
            case .path(let path) where request["urlPath"] == nil && request["urlPathPattern"] == nil:
                request["urlPath"] = .string(path)
            case .pathPrefix(let prefix) where request["urlPath"] == nil && request["urlPathPattern"] == nil:
                request["urlPathPattern"] = .string(NSRegularExpression.escapedPattern(for: prefix) + ".*")
            case .pathPattern(let box) where request["urlPath"] == nil && request["urlPathPattern"] == nil:
                // Understudy searches; WireMock matches the whole path: only an anchored pattern is the same.
                guard box.pattern.hasPrefix("^"), box.pattern.hasSuffix("$"), !box.pattern.hasSuffix("\\$") else { return nil }
                request["urlPathPattern"] = .string(String(box.pattern.dropFirst().dropLast()))
            case .query(let name, let value) where query[name] == nil:
                query[name] = value.map { ["equalTo": .string($0)] } ?? ["matches": ".*"]
            case .header(let name, let test) where headers[name] == nil:
                switch test {
                case .equals(let value): headers[name] = ["equalTo": .string(value)]
                case .contains(let part): headers[name] = ["contains": .string(part)]
                case .present: headers[name] = ["matches": ".*"]
                case .absent: headers[name] = ["absent": true]
                case .pattern: return nil
                case .notPattern(let box): headers[name] = ["doesNotMatch": .string(box.pattern)]
                }
            default:
                return nil
            }
        }
        if !query.isEmpty { request["queryParameters"] = .object(query) }
        if !headers.isEmpty { request["headers"] = .object(headers) }
        if request["method"] == nil { request["method"] = "ANY" }
        return .object(request)
    }
}
