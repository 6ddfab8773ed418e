import Foundation
internal import NIOHPACK
import Understudy

/// The requests an event loop's HTTP/2 connections of one scheme answered with fixed canned
/// stubs, by the HEADERS block of each: a stream on any of them whose block repeats one field
/// for field, byte for byte, is answered again without its block being converted into a
/// request and matched (``HTTP2Connection/lookUpRepeat(_:on:)``).
typealias RepeatedHeaderBlocks = RepeatedRequests<HeaderBlock, RepeatCache<HPACKHeaders>.Entry>

/// A request's HEADERS block as a key of ``RepeatedHeaderBlocks``: equal when the fields are
/// the same bytes in the same order. (`HPACKHeaders`' own equality ignores order and sorts.)
struct HeaderBlock: RepeatedRequestKey {
    let fields: HPACKHeaders

    init(_ fields: HPACKHeaders) {
        self.fields = fields
    }

    static func == (lhs: HeaderBlock, rhs: HeaderBlock) -> Bool {
        guard lhs.fields.count == rhs.fields.count else { return false }
        return zip(lhs.fields, rhs.fields).allSatisfy { sameBytes($0.name, $1.name) && sameBytes($0.value, $1.value) }
    }

    var quickHash: UInt64 {
        var hash = QuickHash()
        for field in fields {
            hash.combine(field.name)
            hash.combine(field.value)
        }
        return hash.value
    }

    var keptBytes: Int {
        fields.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count }
    }

    /// Whether the block names the request's host: else its request depends on the
    /// listener's address, which a tunnelled connection does not share, and is not kept.
    var namesHost: Bool {
        fields.contains(name: ":authority") || fields.contains(name: "host")
    }

    private static func sameBytes(_ lhs: String, _ rhs: String) -> Bool {
        lhs.withUTF8Bytes { left in
            rhs.withUTF8Bytes { right in
                guard left.count == right.count else { return false }
                guard let leftStart = left.baseAddress, let rightStart = right.baseAddress else { return true }
                return memcmp(leftStart, rightStart, left.count) == 0
            }
        }
    }
}
