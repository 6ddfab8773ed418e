/// How `understudy serve` logs each interaction (`--log text|json|quiet`).
package enum LogFormat: String, Sendable, Hashable, CaseIterable {
    /// One readable line: `GET http://img.example.com/a.png -> stub "cat" 200 12ms`.
    case text
    /// One JSON object per line, the same object as `GET /__admin/requests` lists.
    case json
    /// No log lines (the ready line is still printed).
    case quiet
}
