internal import NIOHPACK
internal import NIOHTTP1

/// Why a HEADERS block is not a request: a stream error, the stream reset
/// with PROTOCOL_ERROR and journaled with this message.
struct MalformedHTTP2Request: Error {
    let message: String
}

extension RequestHead {
    /// The request a HEADERS block asks, as the stubs see it: `:method`, `:scheme` and `:path` (each once),
    /// `:authority` as the `Host` field unless the block has one, then the regular fields in
    /// their order. A request without `:authority` is matched on the listener's address (or
    /// the `CONNECT` target of its tunnel).
    ///
    /// This is where a request block is checked against HTTP/2's rules for requests, in the one pass
    /// that reads it: the server turns NIOHTTP2's own header validation off, since that would
    /// check every response block too, which ``WireResponse`` has checked already (see
    /// ARCHITECTURE.md, "HTTP/2").
    init(http2Request block: HPACKHeaders) throws(MalformedHTTP2Request) {
        var method: String?, path: String?, authority: String?, scheme: String?
        var fields: [(String, String)] = []
        fields.reserveCapacity(block.count)
        var hasHost = false
        var duplicate: String?
        for (name, value, _) in block {
            guard name.utf8.first == UInt8(ascii: ":") else {
                try HTTP2FieldRules.checkRegular(name: name, value: value)
                if !hasHost, name == "host" { hasHost = true }
                fields.append((name, value))
                continue
            }
            guard fields.isEmpty else {
                throw MalformedHTTP2Request(message: "pseudo-header \(name) after a regular field (RFC 9113 section 8.3)")
            }
            guard HTTP2FieldRules.isValidPseudoHeaderValue(value) else {
                throw MalformedHTTP2Request(message: "pseudo-header \(name) has a space or control character in its value (RFC 9113 section 8.3)")
            }
            func once(_ slot: inout String?) {
                if slot == nil { slot = value } else if duplicate == nil { duplicate = name }
            }
            switch name {
            case ":method": once(&method)
            case ":path": once(&path)
            case ":authority": once(&authority)
            case ":scheme": once(&scheme)
            default: throw MalformedHTTP2Request(message: "unknown pseudo-header \(name)")
            }
        }
        if let duplicate {
            throw MalformedHTTP2Request(message: "pseudo-header \(duplicate) appears twice")
        }
        guard let method, let path, scheme != nil else {
            let names = block.map(\.name).filter { $0.hasPrefix(":") }
            throw MalformedHTTP2Request(
                message: "a request needs :method, :scheme and :path, once each (RFC 9113 section 8.3.1); this one had \(names.joined(separator: ", "))"
            )
        }
        guard !path.isEmpty else { throw MalformedHTTP2Request(message: "an empty :path (RFC 9113 section 8.3.1)") }
        if let authority, !hasHost {
            fields.insert(("host", authority), at: 0)
        }
        self.init(method: method, target: path, version: .http2, fields: HTTPHeaders(fields), keepAlive: true)
    }
}

/// HTTP/2's rules for the fields of a request block or its trailers.
enum HTTP2FieldRules {
    /// Checks a trailers block: regular fields only.
    static func checkTrailers(_ block: HPACKHeaders) throws(MalformedHTTP2Request) {
        for (name, value, _) in block {
            guard name.utf8.first != UInt8(ascii: ":") else {
                throw MalformedHTTP2Request(message: "pseudo-header \(name) in trailers (RFC 9113 section 8.1)")
            }
            try checkRegular(name: name, value: value)
        }
    }

    /// Checks one regular field: a lowercase token for a name, no connection-specific field,
    /// `te` only as `trailers`, and no CR, LF or NUL in the value.
    static func checkRegular(name: String, value: String) throws(MalformedHTTP2Request) {
        guard HTTPFieldSyntax.isToken(name), !name.utf8.contains(where: { (0x41...0x5A).contains($0) }) else {
            let reason = HTTPFieldSyntax.isToken(name) ? "has uppercase letters" : "is not a token"
            throw MalformedHTTP2Request(message: "field name \"\(name)\" \(reason) (RFC 9113 section 8.2.1)")
        }
        switch name.utf8.count {
        case 2:
            if name == "te", value != "trailers" {
                throw MalformedHTTP2Request(message: "te: \(value); a request may send te only as \"trailers\" (RFC 9113 section 8.2.2)")
            }
        case 7, 10, 16, 17:
            // The lengths of the connection-specific names: no other name is looked up.
            if HTTP2HeaderBlock.connectionSpecific.contains(name) {
                throw MalformedHTTP2Request(message: "connection-specific field \(name) (RFC 9113 section 8.2.2)")
            }
        default:
            break
        }
        guard HTTPFieldSyntax.isValidValue(value) else {
            throw MalformedHTTP2Request(message: "field \(name) has a CR, LF or NUL in its value (RFC 9113 section 8.2.1)")
        }
    }

    /// No space, control character or DEL: every pseudo-header's grammar excludes them.
    static func isValidPseudoHeaderValue(_ value: String) -> Bool {
        !value.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F })
    }
}
