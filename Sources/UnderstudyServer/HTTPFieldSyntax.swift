/// What HTTP allows in a field's name and value, for the fields the server
/// sends (``WireResponse``) and the HTTP/2 request fields it reads (`HTTP2FieldRules`).
enum HTTPFieldSyntax {
    /// Whether `name` is a token: one or more `tchar`s.
    static func isToken(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy(isTokenByte)
    }

    /// Whether `value` holds no CR, LF or NUL, which would end or break the field.
    static func isValidValue(_ value: String) -> Bool {
        !value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 })
    }

    /// HTTP's `tchar`.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"),
             UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
             UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }
}
