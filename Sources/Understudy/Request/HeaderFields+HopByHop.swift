import Foundation

extension HeaderFields {
    /// Headers that describe one connection, never passed on by a proxy (RFC 9110 7.6.1), with
    /// `Proxy-Authenticate` and `Proxy-Authorization`, which are for the proxy itself.
    package static let hopByHopNames: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization",
        "te", "trailer", "transfer-encoding", "upgrade",
    ]

    /// Headers that describe how a body was framed or encoded on its way here: dropped when the
    /// body is passed on decoded and framed anew.
    package static let framingNames: Set<String> = ["content-length", "content-encoding"]

    /// These headers without the hop-by-hop ones, those the `Connection` header names, and any
    /// in `also` (lower-case names).
    package func removingHopByHop(also: Set<String> = []) -> HeaderFields {
        var named = Set<String>()
        for value in values(for: "Connection") {
            for token in value.split(separator: ",") {
                named.insert(token.trimmingCharacters(in: .whitespaces).lowercased())
            }
        }
        var kept = HeaderFields()
        for field in self {
            let lowered = field.name.lowercased()
            if Self.hopByHopNames.contains(lowered) || named.contains(lowered) || also.contains(lowered) { continue }
            kept.add(name: field.name, value: field.value)
        }
        return kept
    }
}
