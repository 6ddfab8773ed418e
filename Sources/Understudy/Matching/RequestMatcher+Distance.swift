import Foundation

extension RequestMatcher {
    /// How far `request` is from matching, from 0 (it matches) to 1, as WireMock ranks near
    /// misses: the URL's closeness weighs 10, the method 3 (a matcher without one matches any,
    /// as WireMock's `ANY` does), each other part (header, query, body) 1; a header compared for
    /// equality is as far as its normalised Levenshtein distance, and a path as the mean of its
    /// directory's and its last segment's, so that `/gone.png` is nearer `/nothing-here.png`
    /// than `/network/pieces/photo.png` is.
    public func distance(to request: StubRequest) -> Double {
        var url: [Double] = [], method: [Double] = [], others: [Double] = []
        for part in parts {
            let distance = part.distance(to: request)
            switch part.kind {
            case .url: url.append(distance)
            case .method: method.append(distance)
            case .other: others.append(distance)
            }
        }
        var total = 0.0, weights = 0.0
        if !url.isEmpty {
            total += 10 * url.reduce(0, +) / Double(url.count)
            weights += 10
        }
        total += method.isEmpty ? 0 : 3 * method.reduce(0, +) / Double(method.count)
        weights += 3
        total += others.reduce(0, +)
        weights += Double(others.count)
        return weights == 0 ? 0 : total / weights
    }
}

extension RequestMatcher.Node {
    enum Kind { case url, method, other }

    var kind: Kind {
        switch self {
        case .scheme, .host, .path, .pathPrefix, .pathPattern, .pathExtension, .pathTemplate: return .url
        case .method: return .method
        case .not(let inner): return inner.kind
        case .custom(let name, _) where name.hasPrefix("URL "): return .url
        default: return .other
        }
    }

    /// 0 when the part passes; else 1, or the normalised Levenshtein distance for a text it
    /// compares for equality.
    func distance(to request: StubRequest) -> Double {
        guard !matches(request) else { return 0 }
        switch self {
        case .path(let path): return Self.pathDistance(path, request.path)
        case .host(let pattern) where !pattern.isGlob: return Self.levenshtein(pattern.value, request.host)
        case .pathExtension(let ext): return Self.levenshtein(ext, request.pathExtension)
        case .pathPrefix(let prefix): return Self.levenshtein(prefix, String(request.path.prefix(prefix.count)))
        case .pathTemplate(let template): return Self.pathDistance(template.text, request.wireMockPath)
        case .custom(let name, _) where name.hasPrefix("URL is "):
            return Self.pathDistance(String(name.dropFirst("URL is ".count)), request.wireMockURL)
        case .custom(let name, _) where name.hasPrefix("URL path is "):
            return Self.pathDistance(String(name.dropFirst("URL path is ".count)), request.wireMockPath)
        case .header(let name, .equals(let expected)):
            guard let actual = request.headers.values(for: name).first else { return 1 }
            return Self.levenshtein(expected, actual)
        default: return 1
        }
    }

    /// The mean of the distances of the directories (up to the last `/`) and of what follows.
    static func pathDistance(_ a: String, _ b: String) -> Double {
        func split(_ path: String) -> (String, String) {
            let beforeQuery = path.firstIndex(of: "?") ?? path.endIndex
            guard let slash = path[..<beforeQuery].lastIndex(of: "/") else { return ("", path) }
            return (String(path[...slash]), String(path[path.index(after: slash)...]))
        }
        let (aDirectory, aName) = split(a), (bDirectory, bName) = split(b)
        return (levenshtein(aDirectory, bDirectory) + levenshtein(aName, bName)) / 2
    }

    /// The edit distance between `a` and `b` over their lengths' maximum, as WireMock's
    /// `normalisedLevenshteinDistance`.
    static func levenshtein(_ a: String, _ b: String) -> Double {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard !x.isEmpty || !y.isEmpty else { return 0 }
        guard !x.isEmpty, !y.isEmpty else { return 1 }
        var previous = Array(0...y.count)
        var current = [Int](repeating: 0, count: y.count + 1)
        for i in 1...x.count {
            current[0] = i
            for j in 1...y.count {
                let cost = x[i - 1] == y[j - 1] ? 0 : 1
                current[j] = Swift.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            }
            swap(&previous, &current)
        }
        return Double(previous[y.count]) / Double(Swift.max(x.count, y.count))
    }
}
