/// What a matcher pins down on the dimensions the registry indexes; `nil` means "any value".
///
/// Derived conservatively: a request that matches the matcher always lies inside these sets,
/// so looking stubs up by them never hides a stub that would have matched.
struct PinnedValues: Sendable {
    var schemes: Set<String>?
    var hosts: [HostPattern]?
    var extensions: Set<String>?
    var methods: Set<String>?
    var paths: Set<String>?

    static let unpinned = PinnedValues()

    /// Both sets of constraints hold: intersect what both pin.
    func intersecting(_ other: PinnedValues) -> PinnedValues {
        PinnedValues(
            schemes: Self.intersect(schemes, other.schemes),
            // Two different host patterns in one conjunction: keep the first, still a superset.
            hosts: hosts ?? other.hosts,
            extensions: Self.intersect(extensions, other.extensions),
            methods: Self.intersect(methods, other.methods),
            paths: Self.intersect(paths, other.paths)
        )
    }

    /// Either set of constraints holds: a dimension stays pinned only if both pin it.
    func union(_ other: PinnedValues) -> PinnedValues {
        PinnedValues(
            schemes: Self.unite(schemes, other.schemes),
            hosts: hosts.flatMap { mine in other.hosts.map { mine + $0 } },
            extensions: Self.unite(extensions, other.extensions),
            methods: Self.unite(methods, other.methods),
            paths: Self.unite(paths, other.paths)
        )
    }

    private static func intersect(_ a: Set<String>?, _ b: Set<String>?) -> Set<String>? {
        switch (a, b) {
        case let (a?, b?): return a.intersection(b)
        default: return a ?? b
        }
    }

    private static func unite(_ a: Set<String>?, _ b: Set<String>?) -> Set<String>? {
        guard let a, let b else { return nil }
        return a.union(b)
    }
}

extension RequestMatcher.Node {
    /// Whether the answer depends on the request alone: `false` when a `.custom` test anywhere
    /// in it may read other state (a "logged in" flag), so the same request can match one time
    /// and not the next.
    var readsOnlyTheRequest: Bool {
        switch self {
        case .custom: return false
        case .and(let nodes), .or(let nodes): return nodes.allSatisfy(\.readsOnlyTheRequest)
        case .not(let node): return node.readsOnlyTheRequest
        default: return true
        }
    }

    var pinned: PinnedValues {
        switch self {
        case .scheme(let scheme):
            return PinnedValues(schemes: [scheme])
        case .host(let pattern):
            return PinnedValues(hosts: [pattern])
        case .pathExtension(let ext):
            return PinnedValues(extensions: [ext])
        case .path(let path):
            // Its extension is not pinned as well: the path bucket is as narrow, and stubs that
            // pin paths alone then leave the extension level without keys, so a request is not
            // looked up by its extension on the way to its path.
            return PinnedValues(paths: [path])
        case .method(let method):
            return PinnedValues(methods: method == "GET" ? ["GET", "HEAD"] : [method])
        case .and(let nodes):
            return nodes.reduce(.unpinned) { $0.intersecting($1.pinned) }
        case .or(let nodes):
            guard let first = nodes.first else { return .unpinned }
            return nodes.dropFirst().reduce(first.pinned) { $0.union($1.pinned) }
        default:
            return .unpinned
        }
    }
}
