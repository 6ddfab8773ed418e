import Foundation

extension StubRequest {
    /// The request target as WireMock matches `url` and `urlPattern` against it: path and query
    /// exactly as the client sent them, still percent-encoded, without the fragment.
    package var wireMockURL: String {
        var rest = Substring(urlString)
        if let separator = rest.range(of: "://") {
            rest = rest[separator.upperBound...]
            rest = rest[(rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex)...]
        }
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        return rest.first == "/" ? String(rest) : "/" + rest
    }

    /// The path as WireMock matches `urlPath` and `urlPathPattern` against it: still percent-encoded.
    package var wireMockPath: String {
        let url = wireMockURL
        guard let question = url.firstIndex(of: "?") else { return url }
        return String(url[..<question])
    }

    /// The query parameters as WireMock reads them: split at `&`, each at its first `=` (none:
    /// the empty value), names and values decoded as `java.net.URLDecoder` does (`+` is a space).
    package var wireMockQuery: [(name: String, value: String)] {
        let url = wireMockURL
        guard let question = url.firstIndex(of: "?") else { return [] }
        let query = url[url.index(after: question)...]
        guard !query.isEmpty else { return [] }
        return query.split(separator: "&").map { item in
            guard let equals = item.firstIndex(of: "=") else { return (Self.formDecoded(item), "") }
            return (Self.formDecoded(item[..<equals]), Self.formDecoded(item[item.index(after: equals)...]))
        }
    }

    /// `application/x-www-form-urlencoded` decoding; text that does not decode is kept as sent.
    private static func formDecoded(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}
