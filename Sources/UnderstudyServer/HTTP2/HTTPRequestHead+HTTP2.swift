internal import NIOHPACK
internal import NIOHTTP1

/// Why a HEADERS block is not a request (RFC 9113 section 8.3.1): a stream error, the stream
/// reset with PROTOCOL_ERROR and journaled with this message.
struct MalformedHTTP2Request: Error {
    let message: String
}

extension HTTPRequestHead {
    /// The request a HEADERS block asks, as the stubs see it: `:method`, `:scheme` and `:path` (each once),
    /// `:authority` as the `Host` field unless the block has one, then the regular fields in
    /// their order. A request without `:authority` is matched on the listener's address (or
    /// the `CONNECT` target of its tunnel).
    init(http2Request block: HPACKHeaders) throws(MalformedHTTP2Request) {
        var method: String?, path: String?, authority: String?, scheme: String?
        var fields: [(String, String)] = []
        fields.reserveCapacity(block.count)
        var hasHost = false
        for (name, value, _) in block {
            guard name.utf8.first == UInt8(ascii: ":") else {
                if !hasHost, name.utf8.count == 4, name.lowercased() == "host" { hasHost = true }
                fields.append((name, value))
                continue
            }
            func once(_ slot: inout String?) throws(MalformedHTTP2Request) {
                guard slot == nil else { throw MalformedHTTP2Request(message: "pseudo-header \(name) appears twice") }
                slot = value
            }
            switch name {
            case ":method": try once(&method)
            case ":path": try once(&path)
            case ":authority": try once(&authority)
            case ":scheme": try once(&scheme)
            default: throw MalformedHTTP2Request(message: "unknown request pseudo-header \(name)")
            }
        }
        guard let method else { throw MalformedHTTP2Request(message: "no :method pseudo-header") }
        guard let path, !path.isEmpty else { throw MalformedHTTP2Request(message: "no :path pseudo-header") }
        guard scheme != nil else { throw MalformedHTTP2Request(message: "no :scheme pseudo-header") }
        if let authority, !hasHost {
            fields.insert(("host", authority), at: 0)
        }
        self.init(version: HTTPVersion(major: 2, minor: 0), method: HTTPMethod(rawValue: method), uri: path, headers: HTTPHeaders(fields))
    }
}
