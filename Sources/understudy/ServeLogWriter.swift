import Foundation
import Understudy
import UnderstudyServer

/// Prints the request log of `serve`: a line per interaction on stdout, and a note whenever the
/// journal limit drops entries (never silently).
final class ServeLogWriter: Sendable {
    private let format: ServeLogFormat
    private let log: RequestLog
    private let reportedDrops = LockedState(0)

    init(format: ServeLogFormat) {
        self.format = format
        self.log = RequestLog(format: LogFormat(rawValue: format.rawValue) ?? .text, colored: isatty(STDOUT_FILENO) != 0)
    }

    func write(_ interaction: Interaction, journal: Journal) {
        guard format != .quiet else { return }
        var lines: [String] = []
        if let line = log.line(for: interaction) {
            lines.append(line)
        }
        let dropped = journal.droppedCount
        reportedDrops.withLock { reportedDrops in
            if dropped > reportedDrops, let limit = journal.limit, let line = log.journalDropLine(limit: limit, dropped: dropped) {
                lines.append(line)
                reportedDrops = dropped
            }
            FileHandle.standardOutput.write(Data(lines.map { $0 + "\n" }.joined().utf8))
        }
    }
}
