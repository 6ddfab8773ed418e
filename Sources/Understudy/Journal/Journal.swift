import Foundation
import UnderstudyImages
import UnderstudySupport

/// Every interaction, matched or not, in the order requests arrived: what tests assert on.
///
/// ```swift
/// stubs.journal.count(matching: .pathExtension("webp"))
/// stubs.journal.unmatched
/// try await stubs.journal.wait(for: .path("/a.png"), count: 2, timeout: .seconds(5))
/// ```
///
/// Entries appear when a request arrives and are completed when its delivery ends, so an
/// assertion made after a client saw its response finds that response recorded.
public final class Journal: Sendable {
    struct Waiter {
        let matcher: RequestMatcher
        let needed: Int
        var seen: Int
        let continuation: CheckedContinuation<Void, any Error>
    }

    struct State {
        var entries = JournalRing()
        /// Ids of entries taken out by ``Journal/remove(id:)`` or ``Journal/remove(matching:)``:
        /// an id is a position in the ring, so a removed entry keeps its slot, unread, until it
        /// rotates out or the journal is cleared.
        var removed: Set<Int> = []
        /// The id of the next entry; the kept ones are the `entries.count` before it.
        var nextID = 1
        var limit: Int?
        var byteLimit: Int?
        /// About how much memory the kept entries hold (the sum of their ``JournalRecord/bytes``).
        var bytes = 0
        var keepsBodies = false
        var dropped = 0
        /// Entries opened and not yet completed.
        var inFlight = 0
        var waiters: [UUID: Waiter] = [:]
        /// Header sets seen lately, whose storage new entries share.
        var recentHeaders: [PackedHeaders] = []
        /// Counts every change (an entry opened, completed, dropped or cleared).
        var version = 0
        /// Who waits in ``Journal/change(after:)`` for the next change.
        var changeWaiters: [UUID: CheckedContinuation<Int, Never>] = [:]

        /// Counts a change and hands back the change waiters to resume (outside the lock):
        /// an increment and a branch when nobody watches, as for every request a server answers.
        mutating func changed() -> [CheckedContinuation<Int, Never>] {
            version &+= 1
            guard !changeWaiters.isEmpty else { return [] }
            defer { changeWaiters.removeAll() }
            return Array(changeWaiters.values)
        }

        var firstID: Int { nextID - entries.count }

        /// Whether entry `id` (one in the ring) has not been removed.
        func isKept(_ id: Int) -> Bool { removed.isEmpty || !removed.contains(id) }
    }

    let state: LockedState<State>

    /// Creates a journal keeping at most `limit` entries and about `byteLimit` bytes of memory
    /// (the oldest are dropped and counted); `nil` does not bound that way.
    /// - Parameters:
    ///   - limit: the most entries kept, or `nil` for all; 0 keeps none (WireMock's
    ///     `--no-request-journal`), though ``wait(for:count:timeout:)`` still sees requests.
    ///   - byteLimit: about the most memory the entries may hold, in bytes, or `nil` for any.
    ///   - keepsBodies: whether entries keep the response body bytes sent (for HAR export).
    public init(limit: Int? = nil, byteLimit: Int? = nil, keepsBodies: Bool = false) {
        var initial = State(limit: limit, byteLimit: byteLimit, keepsBodies: keepsBodies)
        // Reserved up front so that a full journal rotates through exactly the slots it can
        // fill instead of a grown buffer's worth: `limit`, or fewer when `byteLimit` holds fewer
        // entries (each counts at least its slot). Reserving `limit` alone, a journal bounded
        // in bytes would still touch every slot of `limit` as it rotated, whatever
        // `byteLimit` said.
        if let slots = Self.slots(limit: limit, byteLimit: byteLimit) { initial.entries.reserveCapacity(slots) }
        state = LockedState(initial)
    }

    /// The most entries `limit` and `byteLimit` let the journal hold at once, when that is few
    /// enough to reserve.
    private static func slots(limit: Int?, byteLimit: Int?) -> Int? {
        let byBytes = byteLimit.map { max(1, $0 / JournalRecord.size) }
        guard let most = [limit, byBytes].compactMap({ $0 }).min(), most <= 1_000_000 else { return nil }
        return most
    }

    /// Whether entries keep the response body bytes sent (``Interaction/responseBody``), as
    /// recording and HAR export need; off by default, since bodies can be large.
    public var keepsBodies: Bool {
        get { state.withLock { $0.keepsBodies } }
        set { state.withLock { $0.keepsBodies = newValue } }
    }

    /// The most entries kept; older ones are dropped and counted in ``droppedCount``. With 0
    /// none is kept (nor counted as dropped).
    public var limit: Int? {
        get { state.withLock { $0.limit } }
        set { state.withLock { $0.limit = newValue; Self.trim(&$0) } }
    }

    /// About the most memory the kept entries may hold, in bytes: the oldest are dropped (and
    /// counted in ``droppedCount``) to stay within it; the newest entry is always kept.
    ///
    /// An entry costs its fixed part (about 160 bytes) plus what it holds of its own: a URL or
    /// header value longer than 15 bytes, a request body, headers that differ from the last
    /// requests' and responses', near misses, and a response body when ``keepsBodies`` is set.
    /// Headers repeated from recent requests are shared and counted once.
    public var byteLimit: Int? {
        get { state.withLock { $0.byteLimit } }
        set { state.withLock { $0.byteLimit = newValue; Self.trim(&$0) } }
    }

    /// About how much memory the kept entries hold, in bytes, as ``byteLimit`` counts it.
    public var byteCount: Int {
        state.withLock { $0.bytes }
    }

    /// How many entries were dropped to stay within ``limit`` and ``byteLimit``.
    public var droppedCount: Int {
        state.withLock { $0.dropped }
    }

    /// Every entry kept, oldest first.
    public var interactions: [Interaction] {
        // Copied out under the lock (a constant-time copy) and expanded outside it, so a test
        // reading a big journal does not hold up the transports.
        let (records, first, removed) = state.withLock { ($0.entries, $0.firstID, $0.removed) }
        guard !removed.isEmpty else { return records.enumerated().map { $0.element.interaction(id: first + $0.offset) } }
        return records.enumerated().filter { !removed.contains(first + $0.offset) }.map { $0.element.interaction(id: first + $0.offset) }
    }

    /// The number of entries kept.
    public var count: Int {
        state.withLock { $0.entries.count - $0.removed.count }
    }

    /// The number of kept entries still in flight: waiting for a closure, an upstream, a delay
    /// or a gate, or being delivered at a limited bandwidth.
    public var inFlightCount: Int {
        state.withLock { $0.inFlight }
    }

    /// Entries whose request matches `matcher`, oldest first.
    public func interactions(matching matcher: RequestMatcher) -> [Interaction] {
        interactions.filter { matcher.matches($0.request) }
    }

    /// How many entries' requests match `matcher`.
    public func count(matching matcher: RequestMatcher) -> Int {
        let (records, first, removed) = state.withLock { ($0.entries, $0.firstID, $0.removed) }
        return records.enumerated().reduce(0) { count, element in
            count + (!removed.contains(first + element.offset) && matcher.matches(element.element.request) ? 1 : 0)
        }
    }

    /// Entries that no stub answered, oldest first.
    public var unmatched: [Interaction] {
        let (records, first, removed) = state.withLock { ($0.entries, $0.firstID, $0.removed) }
        return records.enumerated().filter { $0.element.isUnmatched && !removed.contains(first + $0.offset) }
            .map { $0.element.interaction(id: first + $0.offset) }
    }

    /// The entry with this id, if still kept.
    public func interaction(id: Int) -> Interaction? {
        state.withLock { state in
            let index = id - state.firstID
            return state.entries.indices.contains(index) && state.isKept(id) ? state.entries[index].interaction(id: id) : nil
        }
    }

    /// Forgets every entry (waiters keep waiting for new ones).
    public func clear() {
        let watchers = state.withLock { state in
            state.entries.removeAll(keepingCapacity: true)
            state.removed.removeAll()
            state.inFlight = 0
            state.bytes = 0
            return state.changed()
        }
        Self.resume(watchers, at: version)
    }

    // MARK: - Watching (the dashboard's live journal)

    /// A number that changes whenever the journal does: an entry opened, completed, dropped or
    /// cleared.
    package var version: Int {
        state.withLock { $0.version }
    }

    /// Waits until the journal's ``version`` is no longer `version`, and returns the new one;
    /// returns at once if it already differs. Cancelling the task ends the wait (returning the
    /// version as it stands).
    package func change(after version: Int) async -> Int {
        let key = UUID()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Int, Never>) in
                let current = state.withLock { state -> Int? in
                    if state.version != version || Task.isCancelled { return state.version }
                    state.changeWaiters[key] = continuation
                    return nil
                }
                if let current { continuation.resume(returning: current) }
            }
        } onCancel: {
            let (waiter, current) = state.withLock { ($0.changeWaiters.removeValue(forKey: key), $0.version) }
            waiter?.resume(returning: current)
        }
    }

    static func resume(_ watchers: [CheckedContinuation<Int, Never>], at version: @autoclosure () -> Int) {
        guard !watchers.isEmpty else { return }
        let version = version()
        watchers.forEach { $0.resume(returning: version) }
    }

    // MARK: - Recording (for transports, through StubResponder)

    /// Records a request's arrival and returns its entry's id.
    /// - Parameters:
    ///   - request: the request.
    ///   - transport: the transport carrying it.
    ///   - redirectedFrom: the entry whose redirect led here, for redirect hops.
    ///   - httpVersion: `HTTP/1.1` or `HTTP/2`, what the request came over.
    ///   - connection: the server connection it came on, if it did.
    package func open(
        _ request: StubRequest, transport: Interaction.Transport, redirectedFrom: Int? = nil, httpVersion: Interaction.HTTPVersion,
        connection: ConnectionFacts? = nil
    ) -> Int {
        var record = JournalRecord(request, transport: transport, redirectedFrom: redirectedFrom, startTime: Date())
        record.isHTTP2 = httpVersion == .http2
        if let connection { record.setConnection(connection) }
        return append(consume record, of: request, inFlight: true)
    }

    /// Records a request together with how it ended, for a response delivered the moment its
    /// request arrived: one trip through the journal's lock instead of ``open(_:transport:redirectedFrom:)``
    /// and ``complete(_:with:)``.
    /// - Parameters:
    ///   - request: the request.
    ///   - transport: the transport carrying it.
    ///   - startTime: when the request arrived.
    ///   - result: how it ended.
    ///   - body: the body bytes sent, when `result` has none: made only if the journal keeps bodies.
    /// - Returns: the entry's id.
    @discardableResult
    package func record(
        _ request: StubRequest, transport: Interaction.Transport, startTime: Date, result: InteractionResult,
        body: @autoclosure () -> Data? = nil
    ) -> Int {
        // Built and completed before taking the lock, which every event loop's every request
        // takes: only numbering and appending happen under it. The body, if the journal keeps
        // bodies, is added under the lock, which knows.
        var record = JournalRecord(request, transport: transport, redirectedFrom: nil, startTime: startTime)
        record.complete(with: result, body: nil, at: Date())
        return append(consume record, of: request, inFlight: false, body: result.responseBody ?? body())
    }

    /// Appends `record`, made of `request`: in flight (opened), or complete with `body` (the body
    /// bytes sent, made only if the journal keeps bodies).
    ///
    /// The record is taken by move (`consuming`, then out of an optional into the lock's
    /// closure): each copy of a record, or of an ``InteractionResult``, retained and released
    /// every field of it, for every request a server answers.
    private func append(
        _ record: consuming JournalRecord, of request: StubRequest, inFlight: Bool, body: @autoclosure () -> Data? = nil
    ) -> Int {
        var pending = Optional(record)
        let (id, ready, watchers) = state.withLock { state -> (Int, [CheckedContinuation<Void, any Error>], [CheckedContinuation<Int, Never>]) in
            var record = pending.take()!
            let id = state.nextID
            state.nextID += 1
            if state.keepsBodies, !inFlight, let body = body() {
                record.keepBody(body)
            }
            // A limit of 0 keeps nothing (`--no-request-journal`): the request is numbered and
            // waits see it, but no entry is kept, dropped or counted.
            if state.limit != 0 {
                record.shareHeaders(with: &state.recentHeaders)
                if let limit = state.limit, state.entries.count >= limit {
                    // Dropped before appending, so the buffer never grows past the limit.
                    Self.drop(state.entries.count - limit + 1, from: &state)
                }
                if let byteLimit = state.byteLimit, state.bytes + Int(record.bytes) > byteLimit {
                    Self.drop(Self.countToDrop(freeing: state.bytes + Int(record.bytes) - byteLimit, keeping: 0, in: state), from: &state)
                }
                if inFlight { state.inFlight += 1 }
                state.bytes += Int(record.bytes)
                // Moved in: passed as it is, the record is copied (each field retained) and the
                // local then destroyed (each released), under the lock.
                state.entries.append(consume record)
            }
            let watchers = state.changed()
            guard !state.waiters.isEmpty else { return (id, [], watchers) }
            var ready: [CheckedContinuation<Void, any Error>] = []
            for (key, var waiter) in state.waiters where waiter.matcher.matches(request) {
                waiter.seen += 1
                if waiter.seen >= waiter.needed {
                    state.waiters[key] = nil
                    ready.append(waiter.continuation)
                } else {
                    state.waiters[key] = waiter
                }
            }
            return (id, ready, watchers)
        }
        ready.forEach { $0.resume() }
        Self.resume(watchers, at: self.version)
        return id
    }

    /// Completes entry `id` with how it ended, and `body`, the body bytes sent when `result`
    /// has none (made only if the journal keeps bodies).
    package func complete(_ id: Int, with result: InteractionResult, body: @autoclosure () -> Data? = nil) {
        let now = Date()
        let watchers = state.withLock { state -> [CheckedContinuation<Int, Never>] in
            let index = id - state.firstID
            guard state.entries.indices.contains(index) else { return [] }
            let keepsBodies = state.keepsBodies
            if state.entries[index].outcome == .inFlight { state.inFlight -= 1 }
            // Updated in place: copying the entry out and back would retain and release every
            // field of it, for every request a server answers.
            let before = Int(state.entries[index].bytes)
            state.entries[index].complete(with: result, body: keepsBodies ? result.responseBody ?? body() : nil, at: now)
            state.bytes += Int(state.entries[index].bytes) - before
            if let byteLimit = state.byteLimit, state.bytes > byteLimit {
                Self.drop(Self.countToDrop(freeing: state.bytes - byteLimit, keeping: 1, in: state), from: &state)
            }
            return state.changed()
        }
        Self.resume(watchers, at: self.version)
    }

    private static func trim(_ state: inout State) {
        if let limit = state.limit, state.entries.count > limit {
            drop(state.entries.count - limit, from: &state)
        }
        if let byteLimit = state.byteLimit, state.bytes > byteLimit {
            drop(countToDrop(freeing: state.bytes - byteLimit, keeping: 1, in: state), from: &state)
        }
    }

    /// How many of the oldest entries to drop to free `excess` bytes, leaving at least the
    /// newest `kept`.
    private static func countToDrop(freeing excess: Int, keeping kept: Int, in state: State) -> Int {
        var freed = 0, count = 0
        let most = state.entries.count - kept
        // Usually one or two entries: stops as soon as enough is freed. Read in place by index:
        // iterating copied each record out (retaining and releasing every field of it).
        var index = state.entries.startIndex
        while freed < excess, count < most {
            freed += Int(state.entries[index].bytes)
            count += 1
            index += 1
        }
        return count
    }

    private static func drop(_ count: Int, from state: inout State) {
        guard count > 0 else { return }
        for index in state.entries.indices.prefix(count) {
            if state.entries[index].outcome == .inFlight { state.inFlight -= 1 }
            state.bytes -= Int(state.entries[index].bytes)
        }
        state.entries.removeFirst(count)
        // Entries removed by hand were no longer kept: they are not counted as dropped.
        let removedBefore = state.removed.count
        if removedBefore > 0 {
            let first = state.firstID
            state.removed = state.removed.filter { $0 >= first }
        }
        state.dropped += count - (removedBefore - state.removed.count)
    }
}
