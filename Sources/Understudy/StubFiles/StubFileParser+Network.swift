import Foundation
internal import Yams

extension StubFileParser {
    /// `network: slow-3g`, or a custom `{ latency: 300ms, rate: 800kbit/s }`.
    mutating func parseNetwork(_ node: Node, path: String) -> NetworkProfile? {
        let known = NetworkProfile.names.joined(separator: ", ")
        if node.kind != .mapping {
            guard let name = string(node, path, expected: "a network profile (\(known)) or {latency, rate}") else { return nil }
            guard let profile = NetworkProfile.named(name) else {
                report(node, path, "unknown network profile '\(name)'; expected one of \(known), or {latency: 300ms, rate: 800kbit/s}")
                return nil
            }
            return profile
        }
        let issuesBefore = issues.count
        guard let fields = entries(node, path, allowed: ["latency", "rate"], expected: "{latency: 300ms, rate: 800kbit/s}") else {
            return nil
        }
        var latency: Duration?
        var rate: Bandwidth?
        for field in fields {
            let fieldPath = join(path, field.key)
            guard let text = string(field.value, fieldPath, expected: field.key == "latency" ? "a duration like 300ms" : "a rate like 800kbit/s")
            else { continue }
            if field.key == "latency" {
                latency = Delay.parseDuration(text)
                if latency == nil {
                    report(field.value, fieldPath, "invalid duration '\(text)'; expected a number with a unit, like 300ms or 1.5s")
                }
            } else {
                rate = Bandwidth(parsing: text)
                if rate == nil {
                    report(field.value, fieldPath, "invalid rate '\(text)'; expected a rate like 800kbit/s, 1.5Mbit/s or 64KB/s")
                }
            }
        }
        for (key, given) in [("latency", latency != nil), ("rate", rate != nil)] where !given && issues.count == issuesBefore {
            report(node, path, "missing key '\(key)'; expected {latency: 300ms, rate: 800kbit/s}")
        }
        guard issues.count == issuesBefore, let latency, let rate else { return nil }
        return .custom(latency: latency, rate: rate)
    }

    /// `{ at: [1024, 8192], interval: 200ms }`, `{ by: scans, interval: 200ms }` or
    /// `{ by: frames, interval: 100ms }`; the interval defaults to 200 ms.
    mutating func parsePieces(_ node: Node, path: String) -> BodyPieces? {
        let expected = "{at: [offsets], interval: 200ms} or {by: scans | frames, interval: 200ms}"
        let issuesBefore = issues.count
        guard let fields = entries(node, path, allowed: ["at", "by", "interval"], expected: expected) else { return nil }
        var cut: BodyPieces.Cut?
        var interval: Duration = .milliseconds(200)
        for field in fields {
            let fieldPath = join(path, field.key)
            switch field.key {
            case "at":
                guard case .sequence(let items) = field.value, !items.isEmpty else {
                    reportMismatch(field.value, fieldPath, expected: "a list of byte offsets like [1024, 8192]")
                    continue
                }
                var offsets: [Int] = []
                for (index, item) in items.enumerated() {
                    if let offset = integer(item, fieldPath + "[\(index)]", expected: "a byte offset >= 1", minimum: 1) {
                        offsets.append(offset)
                    }
                }
                if cut != nil {
                    report(field.keyNode, fieldPath, "found both 'at' and 'by'; expected one of them")
                } else {
                    cut = .at(offsets)
                }
            case "by":
                guard let name = string(field.value, fieldPath, expected: "scans or frames") else { continue }
                let byName: [String: BodyPieces.Cut] = ["scans": .scans, "frames": .frames]
                guard let chosen = byName[name] else {
                    report(field.value, fieldPath, "unknown cut '\(name)'; expected scans (a progressive JPEG) or frames (an animated WebP, GIF or AVIF)")
                    continue
                }
                if cut != nil {
                    report(field.keyNode, fieldPath, "found both 'at' and 'by'; expected one of them")
                } else {
                    cut = chosen
                }
            default:
                if let text = string(field.value, fieldPath, expected: "a duration like 200ms") {
                    if let value = Delay.parseDuration(text) {
                        interval = value
                    } else {
                        report(field.value, fieldPath, "invalid duration '\(text)'; expected a number with a unit, like 200ms or 1s")
                    }
                }
            }
        }
        if cut == nil, issues.count == issuesBefore {
            report(node, path, "missing key 'at' or 'by'; expected \(expected)")
        }
        guard issues.count == issuesBefore, let cut else { return nil }
        return BodyPieces(cut, interval: interval)
    }
}
