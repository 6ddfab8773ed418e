import Foundation

/// The last rendering of a stub's canned response, reused for as long as it would render the
/// same: a stub server answers the same file thousands of times a second, and rendering it
/// anew (reading, sniffing, merging headers) each time is most of the work.
///
/// Only responses whose rendering depends on nothing but themselves are kept: no closure,
/// codec or upstream (those are not rendered immediately anyway) and no random delay. A `file`
/// response is re-rendered when the file's size or modification time changes.
final class RenderCache: Sendable {
    private struct Entry {
        let stamp: FileCache.Stamp?
        let prepared: PreparedResponse
    }

    private static let ids = LockedState<UInt64>(0)
    private let state = LockedState<Entry?>(nil)
    /// The path of a `file` response, worked out once (`URL.path` is not free).
    private let filePath: String?

    /// A cache for the renderings of `response`.
    init(for response: StubResponse) {
        if case .file(let url) = response.body {
            filePath = url.path
        } else {
            filePath = nil
        }
    }

    /// `response` rendered, from the cache when still valid, else by `render` (and kept).
    func prepared(for response: StubResponse, render: () throws -> PreparedResponse) rethrows -> PreparedResponse {
        guard response.rendersTheSameEveryTime else { return try render() }
        var stamp: FileCache.Stamp?
        if let filePath {
            stamp = FileCache.shared.stamp(of: filePath)
            if stamp == nil { return try render() }  // let rendering report the unreadable file
        }
        if let entry = state.withLock({ $0 }), entry.stamp == stamp {
            return entry.prepared
        }
        var prepared = try render()
        prepared.renderID = Self.ids.withLock { id in
            id += 1
            return id
        }
        state.withLock { $0 = Entry(stamp: stamp, prepared: prepared) }
        return prepared
    }
}

extension StubResponse {
    /// Whether two renderings are always alike: canned, and any delay fixed.
    var rendersTheSameEveryTime: Bool {
        guard rendersImmediately else { return false }
        switch delay {
        case nil, .fixed: return true
        case .uniform, .lognormal: return false
        }
    }
}
