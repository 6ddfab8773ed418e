import Foundation
import UnderstudyImages

/// The last rendering of a stub's canned response, reused for as long as it would render the
/// same: a stub server answers the same file thousands of times a second, and rendering it
/// anew (reading, sniffing, merging headers) each time is most of the work.
///
/// Only responses whose rendering depends on nothing but themselves are kept: no closure,
/// codec or upstream (those are not rendered immediately anyway) and no random delay. A `file`
/// response is re-rendered when the file's size or modification time changes; on Linux the
/// file is looked at only after a ``FileChangeMonitor`` saw something change on its path.
final class RenderCache: Sendable {
    private struct Entry {
        let stamp: FileStamp?
        /// The file-change generation read before the stamp was taken (see
        /// ``FileChangeMonitor``): while it stands, the file is as stamped.
        let generation: UInt64?
        let prepared: PreparedResponse
    }

    private static let ids = LockedState<UInt64>(0)
    private let state = LockedState<Entry?>(nil)
    /// The path of a `file` response, worked out once (`URL.path` is not free).
    private let filePath: String?

    /// A cache for the renderings of `response`.
    init(for response: StubResponse) {
        if case .file(let url) = response.body {
            filePath = url.standardizedFileURL.path
        } else {
            filePath = nil
        }
    }

    /// `response` rendered, from the cache when still valid, else by `render` (and kept).
    func prepared(for response: StubResponse, render: () throws -> PreparedResponse) rethrows -> PreparedResponse {
        guard response.rendersTheSameEveryTime else { return try render() }
        guard let filePath else {
            if let entry = state.withLock({ $0 }) { return entry.prepared }
            return try store(render(), stamp: nil, generation: nil)
        }
        #if canImport(Glibc)
        let monitor = FileChangeMonitor.shared
        #else
        let monitor: FileChangeMonitor? = nil
        #endif
        if let monitor, let entry = state.withLock({ $0 }), let generation = entry.generation, monitor.generation() == generation {
            return entry.prepared
        }
        // Watched first and the generation read before the stamp, so that a change made
        // after the stamp always moves the generation on.
        let generation = monitor.flatMap { $0.watch(filePath) ? $0.generation() : nil }
        guard let stamp = FileCache.shared.stamp(of: filePath) else {
            return try render()  // let rendering report the unreadable file
        }
        if let entry = state.withLock({ $0 }), entry.stamp == stamp {
            if generation != entry.generation {
                state.withLock { $0 = Entry(stamp: stamp, generation: generation, prepared: entry.prepared) }
            }
            return entry.prepared
        }
        return try store(render(), stamp: stamp, generation: generation)
    }

    /// The body of the rendering `renderID` (or of one of its 304 or 206 variants), while it is
    /// the one kept.
    func body(ofRendering renderID: UInt64) -> Data? {
        guard let prepared = state.withLock({ $0?.prepared }) else { return nil }
        return prepared.renderID == renderID ? prepared.body : prepared.variants?.body(ofRendering: renderID)
    }

    /// A render id not used before.
    static func nextRenderID() -> UInt64 {
        ids.withLock { id in
            id += 1
            return id
        }
    }

    private func store(_ rendered: PreparedResponse, stamp: FileStamp?, generation: UInt64?) -> PreparedResponse {
        var prepared = rendered
        prepared.renderID = Self.nextRenderID()
        prepared.variants = ResponseVariants()
        if let filePath, let stamp, Int64(prepared.body.count) == stamp.size {
            // A `file` body is the file's bytes as read: rendering transforms nothing.
            prepared.sourceFile = PreparedResponse.SourceFile(path: filePath, stamp: stamp)
        }
        state.withLock { $0 = Entry(stamp: stamp, generation: generation, prepared: prepared) }
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
