import Foundation
import Understudy

/// Formats the request log: one line per interaction, in the chosen ``LogFormat``.
///
/// Pure formatting; the caller writes the lines (without the newline) where it likes.
///
/// ```swift
/// let log = RequestLog(format: .text, colored: isatty(STDOUT_FILENO) == 1)
/// if let line = log.line(for: interaction) { print(line) }
/// ```
///
/// Text lines read `METHOD URL -> ANSWER RESULT DURATIONms` (`METHOD URL HTTP/2 -> ...` for a
/// request that came over HTTP/2), where ANSWER is `stub "name"` or
/// `unmatched`, and RESULT is the status (`200`), `fault NAME`, `STATUS truncated`,
/// `STATUS cancelled` (or `cancelled` before any head), `STATUS failed: message`, or
/// `in flight`. Coloured, the result is green for 2xx, cyan for 3xx, yellow for 4xx and red for
/// 5xx, faults, truncations, cancellations and failures; `unmatched` and its status are red.
package struct RequestLog: Sendable {
    /// The line format.
    package var format: LogFormat
    /// Whether text lines carry ANSI colours (for a terminal).
    package var colored: Bool

    /// Creates a formatter.
    /// - Parameters:
    ///   - format: text, JSON or quiet.
    ///   - colored: whether text lines carry ANSI colours; ignored for JSON.
    package init(format: LogFormat, colored: Bool = false) {
        self.format = format
        self.colored = colored
    }

    /// The line for a finished interaction, or `nil` when quiet.
    package func line(for interaction: Interaction) -> String? {
        line(for: JournalEntry(interaction))
    }

    /// The line for a journal entry, or `nil` when quiet.
    package func line(for entry: JournalEntry) -> String? {
        switch format {
        case .quiet: return nil
        case .json: return String(decoding: AdminResponse.encode(entry), as: UTF8.self)
        case .text: return text(for: entry)
        }
    }

    /// The line saying that the journal dropped old entries to stay within its limit, or `nil`
    /// when quiet or nothing was dropped.
    ///
    /// Text: `journal limit 100000 reached: dropped 5 oldest entries`;
    /// JSON: `{"dropped":5,"event":"journal-limit","limit":100000}`.
    /// - Parameters:
    ///   - limit: the journal's limit.
    ///   - dropped: how many entries were dropped (since the last such line, or in all: the
    ///     line says whatever number it is given).
    package func journalDropLine(limit: Int, dropped: Int) -> String? {
        guard dropped > 0 else { return nil }
        switch format {
        case .quiet:
            return nil
        case .json:
            return #"{"dropped":\#(dropped),"event":"journal-limit","limit":\#(limit)}"#
        case .text:
            let entries = dropped == 1 ? "entry" : "entries"
            return paint("journal limit \(limit) reached: dropped \(dropped) oldest \(entries)", .yellow)
        }
    }

    // MARK: - Text

    private func text(for entry: JournalEntry) -> String {
        let status = entry.response.map { String($0.status) }
        let result: String
        let color: Color
        switch entry.outcome {
        case "fault":
            result = "fault \(entry.fault ?? "unknown")"
            color = .red
        case "truncated", "cancelled":
            result = [status, entry.outcome].compactMap { $0 }.joined(separator: " ")
            color = .red
        case "failed":
            let message = (entry.error ?? "").split(whereSeparator: \.isNewline).joined(separator: " ")
            result = [status, "failed: \(message)"].compactMap { $0 }.joined(separator: " ")
            color = .red
        case "in-flight":
            result = "in flight"
            color = .none
        case "tunnelled":
            result = "tunnelled \(entry.tunnel?.bytesFromClient ?? 0)B out \(entry.tunnel?.bytesToClient ?? 0)B in"
            color = .none
        case "unmatched":
            result = status ?? "no response"
            color = .red
        default:
            result = status ?? entry.outcome
            color = entry.response.map { Color(status: $0.status) } ?? .none
        }
        let answer = entry.stub.map { "stub \"\($0)\"" } ?? paint("unmatched", .red)
        let milliseconds = Int(entry.durationMs.rounded())
        let version = entry.httpVersion == .http1_1 ? "" : " " + entry.httpVersion.rawValue
        return "\(entry.request.method) \(entry.request.url)\(version) -> \(answer) \(paint(result, color)) \(milliseconds)ms"
    }

    private enum Color: String {
        case none = ""
        case green = "32"
        case cyan = "36"
        case yellow = "33"
        case red = "31"

        init(status: Int) {
            switch status {
            case 200..<300: self = .green
            case 300..<400: self = .cyan
            case 400..<500: self = .yellow
            case 500..<600: self = .red
            default: self = .none
            }
        }
    }

    private func paint(_ text: String, _ color: Color) -> String {
        guard colored, color != .none else { return text }
        return "\u{1B}[\(color.rawValue)m\(text)\u{1B}[0m"
    }
}
