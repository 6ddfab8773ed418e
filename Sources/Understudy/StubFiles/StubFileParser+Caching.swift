import Foundation
internal import Yams

extension StubFileParser {
    static let cacheKeys = ["etag", "lastModified", "control"]

    /// `cache: { etag: strong|weak|none|'"v7"', lastModified: file|none|2024-01-01T00:00:00Z,
    /// control: max-age=60 }`; `false` for no validators, `true` for the defaults.
    mutating func parseCache(_ node: Node, path: String) -> CachePolicy? {
        let expected = "{etag, lastModified, control}, true or false"
        if node.kind == .bool, let enabled = node.bool {
            return enabled ? .standard : CachePolicy.none
        }
        let issuesBefore = issues.count
        guard let fields = entries(node, path, allowed: Self.cacheKeys, expected: expected) else { return nil }
        var policy = CachePolicy.standard
        for field in fields {
            let fieldPath = join(path, field.key)
            switch field.key {
            case "etag":
                let expectedTag = #"strong, weak, none or a quoted entity tag like '"v7"'"#
                guard let text = string(field.value, fieldPath, expected: expectedTag) else { continue }
                switch text {
                case "strong": policy.etag = .strong
                case "weak": policy.etag = .weak
                case "none": policy.etag = .none
                case _ where CachePolicy.isValidEntityTag(text): policy.etag = .fixed(text)
                default: report(field.value, fieldPath, "invalid etag '\(text)'; expected \(expectedTag)")
                }
            case "lastModified":
                let expectedDate = "file, none or a date like 2024-01-01T00:00:00Z"
                guard let text = string(field.value, fieldPath, expected: expectedDate) else { continue }
                switch text {
                case "file": policy.lastModified = .file
                case "none": policy.lastModified = .none
                default:
                    guard let date = Self.parseTimestamp(text) else {
                        report(field.value, fieldPath, "invalid lastModified '\(text)'; expected \(expectedDate)")
                        continue
                    }
                    policy.lastModified = .date(date)
                }
            case "control":
                guard let text = string(field.value, fieldPath, expected: "a Cache-Control value like max-age=60") else { continue }
                if let problem = text.unicodeScalars.first(where: { $0.value < 0x20 || $0.value == 0x7F }) {
                    report(field.value, fieldPath, "the Cache-Control value contains the control character U+\(String(format: "%04X", problem.value)); expected text like max-age=60")
                    continue
                }
                policy.control = text
            default:
                preconditionFailure("key '\(field.key)' is allowed but not handled")
            }
        }
        return issues.count == issuesBefore ? policy : nil
    }

    /// `{ afterBytes: 2048, gate: first-scan }`.
    mutating func parsePause(_ node: Node, path: String) -> BodyPause? {
        let expected = "{afterBytes: N, gate: name}"
        let issuesBefore = issues.count
        guard let fields = entries(node, path, allowed: ["afterBytes", "gate"], expected: expected) else { return nil }
        var afterBytes: Int?
        var gate: String?
        for field in fields {
            let fieldPath = join(path, field.key)
            if field.key == "afterBytes" {
                afterBytes = integer(field.value, fieldPath, expected: "an integer >= 0", minimum: 0)
            } else if let name = string(field.value, fieldPath, expected: "a gate name") {
                if name.isEmpty || name.contains("/") {
                    report(field.value, fieldPath, "invalid gate name '\(name)'; expected a non-empty name without '/'")
                } else {
                    gate = name
                }
            }
        }
        for (key, present) in [("afterBytes", afterBytes != nil), ("gate", gate != nil)] where !present && issues.count == issuesBefore {
            report(node, path, "missing key '\(key)'; expected \(expected)")
        }
        guard issues.count == issuesBefore, let afterBytes, let gate else { return nil }
        return BodyPause(afterBytes: afterBytes, gate: gate)
    }

    /// An ISO 8601 timestamp (`2024-01-01T00:00:00Z`, fractional seconds allowed), or an HTTP date.
    static func parseTimestamp(_ text: String) -> Date? {
        let plain = ISO8601DateFormatter()
        if let date = plain.date(from: text) { return date }
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return fractional.date(from: text) ?? HTTPDate.parse(text)
    }
}
