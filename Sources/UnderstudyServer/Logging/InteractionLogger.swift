import Foundation
import Logging
import Understudy
import UnderstudyImages
import UnderstudySupport

/// Sends the server's request log to a swift-log `Logger`: a record per finished interaction,
/// and a warning whenever the journal limit drops entries (never silently).
///
/// A request's record is `info` (`warning` when its stub failed to render); its message is the
/// plain text line (`GET http://img.example.com/a.png -> stub "cat" 200 12ms`) and its metadata
/// holds the parts: `id`, `method`, `url`, `stub` (absent when unmatched), `status` (absent
/// when no head was sent), `outcome`, `fault`, `error`, `durationMs` and `transport`. The
/// journal notice is `warning`, with `event: journal-limit`, `limit` and `dropped` (in all).
///
/// The `id` value is a ``LoggedInteraction``: a handler that knows the type reads the whole
/// journal entry from it (the CLI's `--log json` prints it), any other prints the id.
struct InteractionLogger: Sendable {
    let logger: Logger
    private let journal: Journal
    private let reportedDrops = LockedState(0)

    init(logger: Logger, journal: Journal) {
        self.logger = logger
        self.journal = journal
    }

    /// Whether any record could pass the logger's level: when not, the server skips looking
    /// up finished interactions altogether.
    var isEnabled: Bool {
        logger.logLevel <= .warning
    }

    /// Logs a finished interaction, then the journal notice if entries were dropped since the
    /// last one.
    func log(_ interaction: Interaction) {
        let entry = JournalEntry(interaction)
        let level: Logger.Level = entry.outcome == "failed" ? .warning : .info
        if logger.logLevel <= level, let line = RequestLog(format: .text).line(for: entry) {
            logger.log(level: level, "\(line)", metadata: Self.metadata(of: entry))
        }
        let dropped = journal.droppedCount
        guard dropped > 0, let limit = journal.limit else { return }
        reportedDrops.withLock { reported in
            guard dropped > reported else { return }
            reported = dropped
            // Inside the lock, so notices come out in order and each number once.
            logger.warning(
                "\(RequestLog(format: .text).journalDropLine(limit: limit, dropped: dropped) ?? "")",
                metadata: ["event": "journal-limit", "limit": "\(limit)", "dropped": "\(dropped)"]
            )
        }
    }

    static func metadata(of entry: JournalEntry) -> Logger.Metadata {
        var metadata: Logger.Metadata = [
            "id": .stringConvertible(LoggedInteraction(entry: entry)),
            "method": "\(entry.request.method)",
            "url": "\(entry.request.url)",
            "outcome": "\(entry.outcome)",
            "durationMs": "\(entry.durationMs)",
            "transport": "\(entry.transport)",
        ]
        if let stub = entry.stub { metadata["stub"] = "\(stub)" }
        if let status = entry.response?.status { metadata["status"] = "\(status)" }
        if let fault = entry.fault { metadata["fault"] = "\(fault)" }
        if let error = entry.error { metadata["error"] = "\(error)" }
        return metadata
    }
}

/// The `id` metadata value of a request's log record: prints as the journal id, and carries
/// the whole journal entry for handlers that format it themselves.
package struct LoggedInteraction: Sendable, CustomStringConvertible {
    /// The entry, as `GET /__admin/requests` lists it.
    package let entry: JournalEntry

    package var description: String {
        String(entry.id)
    }
}
