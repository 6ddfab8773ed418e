import Foundation

extension RequestMatcher.Node {
    func matches(_ request: StubRequest) -> Bool {
        switch self {
        case .any:
            return true
        case .scheme(let scheme):
            return request.scheme == scheme
        case .host(let pattern):
            return pattern.matches(request.host)
        case .path(let path):
            return request.path == path
        case .pathPrefix(let prefix):
            return request.path.hasPrefix(prefix)
        case .pathPattern(let box):
            return box.matches(request.path)
        case .pathExtension(let ext):
            return request.pathExtension == ext
        case .pathTemplate(let template):
            return template.parameters(in: request.wireMockPath) != nil
        case .pathParameter(let name, let template, let test):
            guard let value = template.parameters(in: request.wireMockPath)?[name] else { return false }
            return test.passes([value])
        case .method(let method):
            return request.method == method || (method == "GET" && request.method == "HEAD")
        case .query(let name, let value):
            return request.queryItems.contains { $0.name == name && (value == nil || $0.value == value) }
        case .header(let name, let test):
            return test.passes(request.headers.values(for: name))
        case .cookie(let name, let test):
            return test.passes(request.cookieValues(named: name))
        case .accepts(let mediaType):
            return AcceptHeader(request.headers["Accept"]).admits(mediaType)
        case .body(let data):
            return (request.body ?? Data()) == data
        case .bodyContains(let part):
            guard let body = request.body else { return part.isEmpty }
            return part.isEmpty || body.range(of: part) != nil
        case .jsonBody(let json, let comparison):
            guard let body = request.body, let value = try? JSONValue(parsing: body) else { return false }
            return comparison == .exact ? value == json : comparison.matches(json, value)
        case .jsonPath(let path, let test):
            guard let body = request.body, let value = try? JSONValue(parsing: body) else { return false }
            return path.passes(test, in: value)
        case .custom(_, let test):
            return test(request)
        case .and(let nodes):
            return nodes.allSatisfy { $0.matches(request) }
        case .or(let nodes):
            return nodes.contains { $0.matches(request) }
        case .not(let node):
            return !node.matches(request)
        }
    }

    /// `nil` when the request passes; else what was expected and what the request had.
    func mismatch(for request: StubRequest) -> Mismatch? {
        guard !matches(request) else { return nil }
        return Mismatch(expected: description, actual: actual(in: request))
    }

    /// What the request has for the thing this node tests.
    func actual(in request: StubRequest) -> String {
        switch self {
        case .any, .custom:
            return request.description
        case .scheme:
            return request.scheme.isEmpty ? "no scheme" : request.scheme
        case .host:
            return request.host.isEmpty ? "no host" : request.host
        case .path, .pathPrefix, .pathPattern:
            return request.path
        case .pathTemplate:
            return request.wireMockPath
        case .pathParameter(let name, let template, _):
            guard let value = template.parameters(in: request.wireMockPath)?[name] else {
                return "path \(request.wireMockPath), which does not fit \(template)"
            }
            return "path parameter \(name) is \(value)"
        case .pathExtension:
            return request.pathExtension.isEmpty ? "no extension" : request.pathExtension
        case .method:
            return request.method
        case .query(let name, _):
            let values = request.queryItems.filter { $0.name == name }
            if values.isEmpty {
                let query = request.url.query ?? ""
                return query.isEmpty ? "no query" : "query \(query)"
            }
            return values.map { "\(name)=\($0.value)" }.joined(separator: "&")
        case .header(let name, _):
            let values = request.headers.values(for: name)
            return values.isEmpty ? "no \(name) header" : values.map { "\(name): \($0)" }.joined(separator: ", ")
        case .cookie(let name, _):
            let values = request.cookieValues(named: name)
            return values.isEmpty ? "no cookie \(name)" : values.map { "cookie \(name)=\($0)" }.joined(separator: ", ")
        case .accepts:
            return request.headers["Accept"].map { "Accept: \($0)" } ?? "no Accept header"
        case .body, .bodyContains, .jsonBody, .jsonPath:
            guard let body = request.body, !body.isEmpty else { return "no body" }
            return describe(body: body)
        case .and(let nodes), .or(let nodes):
            return nodes.first { !$0.matches(request) }.map { $0.actual(in: request) } ?? request.description
        case .not:
            return request.description
        }
    }

    private func describe(body: Data) -> String {
        if body.count <= 64, let text = String(data: body, encoding: .utf8) {
            return "body \"\(text)\""
        }
        return "a body of \(body.count) bytes"
    }
}

extension RequestMatcher.Node: CustomStringConvertible {
    var description: String {
        switch self {
        case .any: return "any request"
        case .scheme(let scheme): return "scheme is \(scheme)"
        case .host(let pattern): return "host is \(pattern)"
        case .path(let path): return "path is \(path)"
        case .pathPrefix(let prefix): return "path starts with \(prefix)"
        case .pathPattern(let box): return "path matches \(box.pattern)"
        case .pathExtension(let ext): return "extension is \(ext)"
        case .pathTemplate(let template): return "path fits \(template)"
        case .pathParameter(let name, _, let test): return "path parameter \(name) \(test.words)"
        case .method(let method): return "method is \(method)"
        case .query(let name, let value):
            return value.map { "query has \(name)=\($0)" } ?? "query has \(name)"
        case .header(let name, let test):
            return "header \(name) \(test.words)"
        case .cookie(let name, let test): return "cookie \(name) \(test.words)"
        case .accepts(let mediaType): return "Accept admits \(mediaType)"
        case .body(let data):
            if let text = String(data: data, encoding: .utf8), data.count <= 64 { return "body is \"\(text)\"" }
            return "body is \(data.count) given bytes"
        case .bodyContains(let data): return "body contains \"\(String(decoding: data, as: UTF8.self))\""
        case .jsonBody(let json, let comparison):
            return comparison == .exact ? "JSON body is \(json)" : "JSON body is \(json) (\(comparison.words))"
        case .jsonPath(let path, let test): return test.map { "JSON body at \(path) \($0.words)" } ?? "JSON body has \(path)"
        case .custom(let name, _): return name
        case .and(let nodes): return nodes.map(\.description).joined(separator: " and ")
        case .or(let nodes): return "(" + nodes.map(\.description).joined(separator: " or ") + ")"
        case .not(let node): return "not (\(node.description))"
        }
    }
}

extension RequestMatcher.HeaderTest {
    /// Whether the values of the header (or the one value of a path parameter) pass.
    func passes(_ values: [String]) -> Bool {
        switch self {
        case .present: return !values.isEmpty
        case .absent: return values.isEmpty
        case .equals(let expected): return values.contains(expected)
        case .contains(let part): return values.contains { $0.contains(part) }
        case .pattern(let box): return values.contains { box.matches($0) }
        case .notPattern(let box): return values.isEmpty || values.contains { !box.matches($0) }
        }
    }

    /// How the test reads after the header's name: `is image/png`, `matches [0-9]+`.
    var words: String {
        switch self {
        case .present: return "is present"
        case .absent: return "is absent"
        case .equals(let value): return "is \(value)"
        case .contains(let part): return "contains \(part)"
        case .pattern(let box): return "matches \(box.pattern)"
        case .notPattern(let box): return "does not match \(box.pattern)"
        }
    }
}
