import Foundation

extension HeaderFields {
    /// Headers that describe one connection, never passed on by a proxy, with
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
        var kept = HeaderFields()
        forEachEndToEnd { lowered, field in
            if !also.contains(lowered) { kept.add(name: field.name, value: field.value) }
        }
        return kept
    }

    /// Calls `body`, in order, with each field that is not hop-by-hop and its name in lower case:
    /// a field is hop-by-hop when its name is in `hopByHop` or a `Connection` field names it.
    /// The one filter for every message passed on or framed anew; each
    /// caller says which names are hop-by-hop for it (a proxy's ``hopByHopNames``, HTTP/2's
    /// connection-specific fields).
    package func forEachEndToEnd(hopByHop: Set<String> = HeaderFields.hopByHopNames, _ body: (_ lowercasedName: String, _ field: Field) -> Void) {
        var named = Set<String>()
        for value in values(for: "Connection") {
            for token in value.split(separator: ",") {
                named.insert(token.trimmingCharacters(in: .whitespaces).lowercased())
            }
        }
        for field in self {
            let lowered = field.name.lowercased()
            if hopByHop.contains(lowered) || (!named.isEmpty && named.contains(lowered)) { continue }
            body(lowered, field)
        }
    }
}
