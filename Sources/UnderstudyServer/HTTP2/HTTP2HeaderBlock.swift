import Foundation
internal import NIOHPACK
import Understudy

/// Response heads as HTTP/2 header blocks, by RFC 9113's rules: `:status` first, names in
/// lowercase, no connection-specific fields (`Connection`, the fields it names, `Keep-Alive`,
/// `Proxy-Connection`, `Transfer-Encoding`, `Upgrade`), and no `Content-Length` on the
/// statuses that have no body (1xx, 204, 304). Everything else, `Content-Length`, `ETag` and
/// `Vary` among them, goes as it is.
///
/// The fields whose values differ from one response to the next (``perResponse``: `ETag`,
/// `Last-Modified`, `Content-Length`, `Date`, `X-Understudy-Stub`, ...) go as literals the HPACK encoder does not
/// add to its dynamic table: indexed, each stub's pair pushed out the stable fields (a
/// `Content-Type` sent on every response) and the encoder scanned a table that was always
/// full, 19% of the instructions of an h2 client asking for 1,000 different images. A
/// rendering sent again right after itself is sent with everything indexable (see
/// `HTTP2Connection.headerBlock(for:)`): a client repeating one URL gets one-byte indexes,
/// not the values Huffman-coded anew on every response (14% more instructions per request).
enum HTTP2HeaderBlock {
    /// Fields sent without indexing (their values seldom repeat across responses).
    static let perResponse: Set<String> = [
        "etag", "last-modified", "content-length", "date", "content-range", "expires", "age", "content-md5", "digest",
        "x-understudy-stub",
    ]

    /// Names a response on HTTP/2 must not carry.
    static let connectionSpecific: Set<String> = ["connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade"]

    /// The HEADERS block of a response; with `indexingEverything`, the ``perResponse`` fields
    /// are indexable too.
    static func response(status: Int, headers: HeaderFields, indexingEverything: Bool = false) -> HPACKHeaders {
        let hasNoBody = status == 204 || status == 304 || (100...199).contains(status)
        var dropped = connectionSpecific
        for value in headers.values(for: "Connection") {
            for name in value.split(separator: ",") {
                dropped.insert(name.trimmingCharacters(in: .whitespaces).lowercased())
            }
        }
        var block = HPACKHeaders()
        block.reserveCapacity(headers.count + 1)
        block.add(name: ":status", value: String(status))
        for field in headers {
            let name = field.name.lowercased()
            if dropped.contains(name) || (hasNoBody && name == "content-length") { continue }
            block.add(name: name, value: field.value, indexing: !indexingEverything && perResponse.contains(name) ? .nonIndexable : .indexable)
        }
        return block
    }
}
