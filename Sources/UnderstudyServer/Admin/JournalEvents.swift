import Foundation
import Understudy
import UnderstudyImages
import UnderstudySupport

/// The server-sent events of `GET /__admin/events`: `event: journal` with the journal's
/// version, at once and then whenever the journal changes (at most every `interval`, however
/// busy the server), and an `event: tick` after `heartbeat` without changes, so the page
/// refreshes what the journal does not count (stubs posted, gates) and notices a dead stream.
///
/// ```
/// retry: 1000
/// event: journal
/// data: 42
///
/// ```
struct JournalEvents: Sendable {
    let journal: Journal
    var interval: Duration = .milliseconds(150)
    var heartbeat: Duration = .seconds(5)

    /// The events, produced only as the stream is read; they end when the reading task is cancelled.
    func stream() -> AsyncStream<Data> {
        let last = LockedState<Int?>(nil)
        let journal = self.journal, interval = self.interval, heartbeat = self.heartbeat
        return AsyncStream(unfolding: {
            guard !Task.isCancelled else { return nil }
            guard let seen = last.withLock({ $0 }) else {
                let version = journal.version
                last.withLock { $0 = version }
                return Data("retry: 1000\nevent: journal\ndata: \(version)\n\n".utf8)
            }
            let changed = await withTaskGroup(of: Int?.self) { group in
                group.addTask { await journal.change(after: seen) }
                group.addTask {
                    try? await Task.sleep(for: heartbeat)
                    return nil
                }
                let first = await group.next() ?? nil
                group.cancelAll()
                return first
            }
            guard !Task.isCancelled else { return nil }
            guard changed != nil else { return Data("event: tick\ndata: \(seen)\n\n".utf8) }
            // A burst of requests becomes one event: wait a little, then report where it got to.
            try? await Task.sleep(for: interval)
            let version = journal.version
            last.withLock { $0 = version }
            return Data("event: journal\ndata: \(version)\n\n".utf8)
        })
    }
}
