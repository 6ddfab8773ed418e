import Foundation
import UnderstudyImages
import UnderstudySupport

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
        /// The monitor's ``FileChangeMonitor/watchEpoch`` when the path was watched, if it
        /// stood still meanwhile: while it stands, the path need not be watched again.
        var watchedEpoch: UInt64?
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
    /// `fileCheck` shares one look at changed files among the requests of a server loop's turn.
    func prepared(for response: StubResponse, fileCheck: FileCheckTurn? = nil, render: () throws -> PreparedResponse) rethrows -> PreparedResponse {
        guard response.rendersTheSameEveryTime else { return try render() }
        guard let filePath else {
            if let prepared = state.withLock({ $0?.prepared }) { return prepared }
            return try store(render(), stamp: nil, generation: nil, watchedEpoch: nil)
        }
        let monitor = FileChangeMonitor.shared
        if let monitor {
            // The usual answer, without copying the whole entry out of the lock (a retain and a
            // release for each of its fields): the generation read first is as good as one read
            // after, since an equal one means nothing changed from the entry's to this one.
            let generation = monitor.generation(in: fileCheck)
            if let prepared = state.withLock({ $0?.generation == generation ? $0?.prepared : nil }) {
                return prepared
            }
        }
        let kept = state.withLock { $0 }
        // Watched first and the generation read before the stamp, so that a change made
        // after the stamp always moves the generation on. Something changed somewhere in the
        // watched directories (a busy /tmp moves the generation all the time), so this runs
        // once per change for every file stub asked for: walking and looking up its path
        // again only when watches were forgotten since it was last watched.
        var generation: UInt64?
        var watchedEpoch: UInt64?
        if let monitor {
            let epoch = monitor.watchEpoch
            if (kept?.watchedEpoch).map({ $0 == epoch }) ?? false || monitor.watch(filePath) {
                generation = monitor.generation(in: fileCheck)
                if monitor.watchEpoch == epoch { watchedEpoch = epoch }
            }
        }
        guard let stamp = FileCache.shared.stamp(of: filePath) else {
            return try render()  // let rendering report the unreadable file
        }
        if let entry = kept, entry.stamp == stamp {
            if generation != entry.generation || watchedEpoch != entry.watchedEpoch {
                state.withLock { $0 = Entry(stamp: stamp, generation: generation, watchedEpoch: watchedEpoch, prepared: entry.prepared) }
            }
            return entry.prepared
        }
        return try store(render(), stamp: stamp, generation: generation, watchedEpoch: watchedEpoch)
    }

    /// How long a rendering that ``prepared(for:fileCheck:render:)`` gave stays the one it gives.
    enum Lasting {
        /// Until the stub changes: the response reads no file.
        case always
        /// While the file-change generation (``FileChangeMonitor``) stays this one: the file is
        /// watched, and was as stamped at this generation.
        case whileGeneration(UInt64)

        /// Whether a rendering that lasts so is still the one `prepared` gives.
        func stands(in fileCheck: FileCheckTurn?) -> Bool {
            switch self {
            case .always: true
            case .whileGeneration(let generation): FileChangeMonitor.shared?.generation(in: fileCheck) == generation
            }
        }
    }

    /// How long `prepared`, which ``prepared(for:fileCheck:render:)`` just gave for `response`,
    /// stays what it gives: `nil` when only looking at the file again can tell (no monitor
    /// watches it, or it changed meanwhile).
    func lasting(of prepared: PreparedResponse, for response: StubResponse, fileCheck: FileCheckTurn?) -> Lasting? {
        guard response.rendersTheSameEveryTime, let renderID = prepared.renderID else { return nil }
        guard filePath != nil else { return .always }
        guard let monitor = FileChangeMonitor.shared else { return nil }
        // Read after the rendering: the entry kept must be this rendering, checked at this very
        // generation (an entry whose path is not watched has none).
        let generation = monitor.generation(in: fileCheck)
        let lasts = state.withLock { $0?.generation == generation && $0?.prepared.renderID == renderID }
        return lasts ? .whileGeneration(generation) : nil
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

    private func store(_ rendered: PreparedResponse, stamp: FileStamp?, generation: UInt64?, watchedEpoch: UInt64?) -> PreparedResponse {
        var prepared = rendered
        prepared.renderID = Self.nextRenderID()
        prepared.variants = ResponseVariants()
        if let filePath, let stamp, Int64(prepared.body.count) == stamp.size {
            // A `file` body is the file's bytes as read: rendering transforms nothing.
            prepared.sourceFile = PreparedResponse.SourceFile(path: filePath, stamp: stamp)
        }
        state.withLock { $0 = Entry(stamp: stamp, generation: generation, watchedEpoch: watchedEpoch, prepared: prepared) }
        return prepared
    }
}

extension StubResponse {
    /// Whether two renderings are always alike: canned, and any delay fixed. What a stub leaves
    /// to chance does not count: it is drawn per request after the rendering (``StubRegistry/drawn(_:)``).
    var rendersTheSameEveryTime: Bool {
        guard rendersImmediately else { return false }
        switch delay {
        case nil, .fixed: return true
        case .uniform, .lognormal: return false
        }
    }
}
