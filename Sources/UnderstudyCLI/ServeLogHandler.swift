import Foundation
import Logging
import Understudy
import UnderstudyImages
import UnderstudySupport
import UnderstudyServer

/// The `--log text|json|quiet` of `serve`, `record` and `replay`, as a swift-log handler: the
/// server's request records become the request log on stdout (a line per interaction, and a
/// note whenever the journal limit drops entries); anything else (errors) goes to stderr.
///
/// - `text`: `GET http://img.example.com/a.png -> stub "cat" 200 12ms`, coloured on a terminal.
/// - `json`: the journal entry as `GET /__admin/requests` lists it, one object per line.
/// - `quiet`: no request log (the level is `error`, so the server does not even build records).
struct ServeLogHandler: LogHandler {
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level

    private let log: RequestLog
    private let output: Output

    /// A handler for `format`, writing to the process's stdout and stderr.
    init(format: ServeLogFormat, colored: Bool = isatty(STDOUT_FILENO) != 0) {
        self.init(format: format, colored: colored, output: Output(standardOutput: .standardOutput, standardError: .standardError))
    }

    init(format: ServeLogFormat, colored: Bool, output: Output) {
        self.log = RequestLog(format: LogFormat(rawValue: format.rawValue) ?? .text, colored: colored)
        self.logLevel = format == .quiet ? .error : .info
        self.output = output
    }

    /// A logger for `format`.
    static func logger(format: ServeLogFormat) -> Logger {
        Logger(label: "understudy") { _ in ServeLogHandler(format: format) }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let fields = event.metadata ?? [:]
        if case .stringConvertible(let value)? = fields["id"], let logged = value as? LoggedInteraction {
            if let line = log.line(for: logged.entry) { output.write(line, to: .out) }
        } else if case .string("journal-limit")? = fields["event"],
                  case .string(let limit)? = fields["limit"], case .string(let dropped)? = fields["dropped"] {
            if let line = log.journalDropLine(limit: Int(limit) ?? 0, dropped: Int(dropped) ?? 0) { output.write(line, to: .out) }
        } else {
            output.write(event.message.description, to: .err)
        }
    }

    /// Where lines go; one lock, so lines from many connections never interleave.
    final class Output: Sendable {
        enum Stream { case out, err }

        private let handles: LockedState<(out: FileHandle, err: FileHandle)>

        init(standardOutput: FileHandle, standardError: FileHandle) {
            handles = LockedState((standardOutput, standardError))
        }

        func write(_ line: String, to stream: Stream) {
            handles.withLock { handles in
                (stream == .out ? handles.out : handles.err).write(Data((line + "\n").utf8))
            }
        }
    }
}
