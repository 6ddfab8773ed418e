/// Stubs bucketed by the host, extension and exact path they pin, so that a request is tested
/// only against the few stubs that could match it.
///
/// Three levels, each keyed by a pinned value or `nil` for "any": host (exact hosts here, glob
/// suffixes such as `.example.com` in `globs`), then extension, then exact path. A request
/// visits its host, the glob suffixes of its host that some stub uses, and `nil`; in each, its
/// extension and `nil`; in each of those, its path and `nil`: a few hash lookups whatever the
/// number of stubs. Each bucket is sorted by precedence, so a bucket is scanned only until its
/// first acceptable stub or until nothing in it can beat the best found so far.
struct StubIndex {
    typealias PathBuckets = [String?: [StubEntry]]
    typealias ExtensionBuckets = [String?: PathBuckets]

    private var hosts: [String?: ExtensionBuckets] = [:]
    private var globs: [Substring: ExtensionBuckets] = [:]
    /// Whether every stub's matcher depends on the request alone, so that an identical request
    /// gets the same stub while none is added or removed (see ``StubRegistry/RepeatableMatch``).
    private(set) var matchesByRequestAlone = true

    init(entries: some Sequence<StubEntry>) {
        for entry in entries {
            matchesByRequestAlone = matchesByRequestAlone && entry.matchesByRequestAlone
            let extensionKeys: [String?] = entry.pinned.extensions.map { $0.map { Optional($0) } } ?? [nil]
            let pathKeys: [String?] = entry.pinned.paths.map { $0.map { Optional($0) } } ?? [nil]
            let hostKeys: [HostPattern?] = entry.pinned.hosts.map { $0.map { Optional($0) } } ?? [nil]
            for host in hostKeys {
                for ext in extensionKeys {
                    for path in pathKeys {
                        if let host, host.isGlob {
                            globs[Substring(host.value), default: [:]][ext, default: [:]][path, default: []].append(entry)
                        } else {
                            hosts[host?.value, default: [:]][ext, default: [:]][path, default: []].append(entry)
                        }
                    }
                }
            }
        }
        hosts = hosts.mapValues(Self.sorted)
        globs = globs.mapValues(Self.sorted)
    }

    private static func sorted(_ buckets: ExtensionBuckets) -> ExtensionBuckets {
        buckets.mapValues { $0.mapValues { $0.sorted { $0.precedes($1) } } }
    }

    /// The entry of highest precedence that passes `accept`.
    func first(for request: StubRequest, where accept: (StubEntry) -> Bool) -> StubEntry? {
        var best: StubEntry?
        // Unrolled (this extension, then any; this path, then any) rather than looping over
        // two-element arrays: those were allocated for every bucket of every request.
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
            scan(byPath[request.path])
            scan(byPath[nil])
        }
        func scan(_ buckets: ExtensionBuckets?) {
            guard let buckets else { return }
            scan(buckets[request.pathExtension])
            scan(buckets[nil])
        }
        scan(hosts[request.host])
        if !globs.isEmpty {
            let host = Substring(request.host)
            var start = host.startIndex
            while let dot = host[start...].firstIndex(of: ".") {
                scan(globs[host[dot...]])
                start = host.index(after: dot)
            }
        }
        scan(hosts[nil])
        return best
    }
}
