internal import Yams

extension StubFileParser {
    static let tlsKeys = ["host", "certificate"]

    /// The `tls:` list: `[{host: GLOB, certificate: expired | ...}]`, appended to ``tlsRules``.
    mutating func parseTLS(_ node: Node, path: String) {
        guard case .sequence(let items) = node else {
            reportMismatch(node, path, expected: "a list of {host, certificate} mappings")
            return
        }
        guard !items.isEmpty else {
            report(node, path, "the list is empty; expected at least one {host, certificate} mapping")
            return
        }
        for (index, item) in items.enumerated() {
            if let rule = parseTLSRule(item, path: "\(path)[\(index)]") {
                tlsRules.append(rule)
            }
        }
    }

    private mutating func parseTLSRule(_ node: Node, path: String) -> TLSRule? {
        let issuesBefore = issues.count
        guard let fields = entries(node, path, allowed: Self.tlsKeys, expected: "a {host, certificate} mapping") else {
            return nil
        }
        var host: String?
        var behaviour: TLSBehaviour?
        for field in fields {
            let fieldPath = join(path, field.key)
            switch field.key {
            case "host":
                guard let text = string(field.value, fieldPath, expected: "a host or host glob") else { continue }
                if !Self.looksLikeHost(text) {
                    report(field.value, fieldPath, "'\(text)' is not a host; expected a host such as img.example.com, 127.0.0.1 or *.example.com")
                } else {
                    host = text
                }
            case "certificate":
                guard let text = string(field.value, fieldPath, expected: "a certificate behaviour") else { continue }
                if let known = TLSBehaviour(rawValue: text) {
                    behaviour = known
                } else {
                    let names = TLSBehaviour.allCases.map(\.rawValue).joined(separator: ", ")
                    report(field.value, fieldPath, "unknown certificate '\(text)'; expected one of \(names)")
                }
            default:
                preconditionFailure("key '\(field.key)' is allowed but not handled")
            }
        }
        for key in Self.tlsKeys where !fields.contains(where: { $0.key == key }) {
            report(node, path, "missing key '\(key)'; expected a {host, certificate} mapping")
        }
        guard issues.count == issuesBefore, let host, let behaviour else { return nil }
        return TLSRule(host: host, behaviour: behaviour)
    }

    /// Refuses what is plainly not a host: empty, a URL, a path, or `host:port` (one colon;
    /// an IPv6 address has several).
    static func looksLikeHost(_ text: String) -> Bool {
        !text.isEmpty && !text.contains(where: { $0 == "/" || $0 == "@" || $0.isWhitespace })
            && text.filter({ $0 == ":" }).count != 1
    }
}
