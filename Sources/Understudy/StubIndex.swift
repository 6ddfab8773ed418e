/// Stubs bucketed by the host, extension and exact path they pin, so that a request is tested
/// only against the few stubs that could match it.
///
/// Three levels, each keyed by a pinned value or `nil` for "any": host (exact hosts here, glob
/// suffixes such as `.example.com` in `globs`), then extension, then exact path. A request
/// visits its host, the glob suffixes of its host that some stub uses, and `nil`; in each, its
/// extension and `nil`; in each of those, its path and `nil`: a few hash lookups whatever the
/// number of stubs. Each bucket is sorted by precedence, so a bucket is scanned only until its
/// first acceptable stub or until nothing in it can beat the best found so far.
///
/// Each level keeps its "any" bucket apart from the pinned ones, and a level with no pinned
/// value is not looked up: stubs pinning only their paths cost a request one hash lookup (its
/// path), not six (with `nil` and the absent host and extension keys).
struct StubIndex: Sendable {
    typealias PathBuckets = Level<[StubEntry]>
    typealias ExtensionBuckets = Level<PathBuckets>

    /// One level: buckets by a pinned value, and the bucket of the stubs that pin none.
    struct Level<Bucket: Sendable>: Sendable {
        private(set) var pinned: [String: Bucket] = [:]
        private(set) var any: Bucket?

        /// The bucket of `value`, if a stub pins it (not looked up when none pins anything).
        func bucket(pinning value: String) -> Bucket? {
            pinned.isEmpty ? nil : pinned[value]
        }

        /// Changes the bucket of `key` (`nil`: any), made from `empty` first if there is none.
        mutating func update(_ key: String?, empty: @autoclosure () -> Bucket, _ change: (inout Bucket) -> Void) {
            if let key {
                change(&pinned[key, default: empty()])
            } else {
                var bucket = any ?? empty()
                any = nil
                change(&bucket)
                any = bucket
            }
        }

        func mapBuckets<T>(_ transform: (Bucket) -> T) -> Level<T> {
            Level<T>(pinned: pinned.mapValues(transform), any: any.map(transform))
        }
    }

    private var hosts = Level<ExtensionBuckets>()
    private var globs: [Substring: ExtensionBuckets] = [:]
    /// Whether every stub's matcher depends on the request alone, so that an identical request
    /// gets the same stub while none is added or removed (see ``StubRegistry/RepeatableMatch``).
    private(set) var matchesByRequestAlone = true
    /// Whether some stub says how to take a request's body before it is read.
    private(set) var handlesBodiesOnHead = false

    init(entries: some Sequence<StubEntry>) {
        for entry in entries {
            handlesBodiesOnHead = handlesBodiesOnHead || entry.handlesBodyOnHead
            matchesByRequestAlone = matchesByRequestAlone && entry.matchesByRequestAlone
            let extensionKeys: [String?] = entry.pinned.extensions.map { $0.map { Optional($0) } } ?? [nil]
            let pathKeys: [String?] = entry.pinned.paths.map { $0.map { Optional($0) } } ?? [nil]
            let hostKeys: [HostPattern?] = entry.pinned.hosts.map { $0.map { Optional($0) } } ?? [nil]
            for host in hostKeys {
                for ext in extensionKeys {
                    for path in pathKeys {
                        let add: (inout ExtensionBuckets) -> Void = { buckets in
                            buckets.update(ext, empty: PathBuckets()) { $0.update(path, empty: []) { $0.append(entry) } }
                        }
                        if let host, host.isGlob {
                            add(&globs[Substring(host.value), default: ExtensionBuckets()])
                        } else {
                            hosts.update(host?.value, empty: ExtensionBuckets(), add)
                        }
                    }
                }
            }
        }
        hosts = hosts.mapBuckets(Self.sorted)
        globs = globs.mapValues(Self.sorted)
    }

    private static func sorted(_ buckets: ExtensionBuckets) -> ExtensionBuckets {
        buckets.mapBuckets { $0.mapBuckets { $0.sorted { $0.precedes($1) } } }
    }

    /// The entry of highest precedence that passes `accept`.
    func first(for request: StubRequest, where accept: (StubEntry) -> Bool) -> StubEntry? {
        var best: StubEntry?
        // Unrolled (this extension, then any; this path, then any) rather than looping over
        // two-element arrays, which would be allocated for every bucket of every request.
        func scan(_ list: [StubEntry]?) {
            guard let list else { return }
            for entry in list {
                if let best, best.precedes(entry) { break }
                if accept(entry) {
                    best = entry
                    break
                }
            }
        }
        func scan(_ byPath: PathBuckets?) {
            guard let byPath else { return }
            scan(byPath.bucket(pinning: request.path))
            scan(byPath.any)
        }
        func scan(_ buckets: ExtensionBuckets?) {
            guard let buckets else { return }
            scan(buckets.bucket(pinning: request.pathExtension))
            scan(buckets.any)
        }
        scan(hosts.bucket(pinning: request.host))
        if !globs.isEmpty {
            let host = Substring(request.host)
            var start = host.startIndex
            while let dot = host[start...].firstIndex(of: ".") {
                scan(globs[host[dot...]])
                start = host.index(after: dot)
            }
        }
        scan(hosts.any)
        return best
    }
}
