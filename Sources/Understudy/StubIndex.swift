/// A stub as the registry holds it: the stub plus its bookkeeping.
final class StubEntry {
    let stub: Stub
    /// Order of addition; among equal priorities the higher wins.
    let sequence: Int
    let pinned: PinnedValues
    var uses = 0

    init(stub: Stub, sequence: Int) {
        self.stub = stub
        self.sequence = sequence
        self.pinned = stub.matcher.node.pinned
    }

    var isExhausted: Bool {
        stub.times.map { uses >= $0 } ?? false
    }

    /// Whether this entry takes precedence over `other`: higher priority, then added later.
    func precedes(_ other: StubEntry) -> Bool {
        stub.priority != other.stub.priority ? stub.priority > other.stub.priority : sequence > other.sequence
    }

    /// The cheap pinned-value tests the index does not already guarantee.
    func passesPrefilter(_ request: StubRequest) -> Bool {
        if let methods = pinned.methods, !methods.contains(request.method) { return false }
        if let schemes = pinned.schemes, !schemes.contains(request.scheme) { return false }
        return true
    }
}

/// Stubs bucketed by the host and extension they pin, so that a request is tested only
/// against the stubs that could match it, in precedence order.
///
/// Host keys are an exact host, `*` plus a glob's suffix (`*.example.com`), or `nil` for stubs
/// that pin no host; extension keys are an extension or `nil`. A request looks up its host,
/// each glob suffix of it that some stub uses, and `nil`, crossed with its extension and `nil`:
/// a handful of hash lookups whatever the number of stubs.
struct StubIndex {
    private var buckets: [String?: [String?: [StubEntry]]] = [:]
    private var globSuffixes: Set<String> = []

    init(entries: some Sequence<StubEntry>) {
        for entry in entries {
            let hostKeys: [String?] = entry.pinned.hosts.map { $0.map { $0.isGlob ? "*" + $0.value : $0.value } } ?? [nil]
            let extensionKeys: [String?] = entry.pinned.extensions.map { $0.map { Optional($0) } } ?? [nil]
            for host in hostKeys {
                if let host, host.hasPrefix("*") { globSuffixes.insert(String(host.dropFirst())) }
                for ext in extensionKeys {
                    buckets[host, default: [:]][ext, default: []].append(entry)
                }
            }
        }
        for (host, byExtension) in buckets {
            for (ext, list) in byExtension {
                buckets[host]![ext] = list.sorted { $0.precedes($1) }
            }
        }
    }

    /// The first entry, in precedence order, that passes `accept`.
    func first(for request: StubRequest, where accept: (StubEntry) -> Bool) -> StubEntry? {
        var lists: [[StubEntry]] = []
        lists.reserveCapacity(4)
        func collect(_ hostKey: String?) {
            guard let byExtension = buckets[hostKey] else { return }
            if let list = byExtension[request.pathExtension] { lists.append(list) }
            if let list = byExtension[nil] { lists.append(list) }
        }
        collect(request.host)
        if !globSuffixes.isEmpty {
            var suffix = Substring(request.host)
            while let dot = suffix.dropFirst().firstIndex(of: ".") {
                suffix = suffix[dot...]
                if globSuffixes.contains(String(suffix)) { collect("*" + suffix) }
            }
        }
        collect(nil)

        if lists.count == 1 {
            return lists[0].first(where: accept)
        }
        // A k-way merge over the few lists, best head first, stopping at the first accepted.
        var cursors = [Int](repeating: 0, count: lists.count)
        while true {
            var best = -1
            for i in lists.indices where cursors[i] < lists[i].count {
                if best < 0 || lists[i][cursors[i]].precedes(lists[best][cursors[best]]) { best = i }
            }
            guard best >= 0 else { return nil }
            let entry = lists[best][cursors[best]]
            cursors[best] += 1
            if accept(entry) { return entry }
        }
    }
}
