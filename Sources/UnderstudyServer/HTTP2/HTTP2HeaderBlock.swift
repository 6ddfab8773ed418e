import Foundation
internal import NIOHPACK
import Understudy
import UnderstudyImages
import UnderstudySupport

/// Response heads as HTTP/2 header blocks, by HTTP/2's rules: `:status` first, names in
/// lowercase, no connection-specific fields (`Connection`, the fields it names, `Keep-Alive`,
/// `Proxy-Connection`, `Transfer-Encoding`, `Upgrade`), and no `Content-Length` on the
/// statuses that have no body (1xx, 204, 304). Everything else, `Content-Length`, `ETag` and
/// `Vary` among them, goes as it is.
///
/// The fields whose values differ from one response to the next (``perResponse``: `ETag`,
/// `Last-Modified`, `Content-Length`, `Date`, `X-Understudy-Stub`, ...) go as literals the HPACK encoder does not
/// add to its dynamic table: indexed, each stub's pair would push out the stable fields (a
/// `Content-Type` sent on every response) and the encoder would scan a table that is always
/// full. A rendering sent again right after itself is sent with everything indexable (see
/// `HTTP2Connection.headerBlock(for:)`): a client repeating one URL gets one-byte indexes,
/// not the values Huffman-coded anew on every response.
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
        let hasNoBody = PreparedResponse.hasNoBody(status: status)
        var block = HPACKHeaders()
        block.reserveCapacity(headers.count + 1)
        block.add(name: ":status", value: String(status))
        headers.forEachEndToEnd(hopByHop: connectionSpecific) { name, field in
            if hasNoBody && name == "content-length" { return }
            block.add(name: name, value: field.value, indexing: !indexingEverything && perResponse.contains(name) ? .nonIndexable : .indexable)
        }
        return block
    }
}

/// The HEADERS blocks of one event loop, by rendering (``PreparedResponse/renderID``): touched
/// only on that loop, shared by its connections, and holding as many renderings as its
/// ``WireResponseCache``. A cache per connection, of a few hundred blocks, would have a client
/// that goes through more images than that, in turn, get every block made anew.
final class HTTP2HeaderBlockCache {
    /// A rendering's block with its per-response fields not indexed, and (once it was sent
    /// twice in a row on a connection) the block with everything indexable.
    private var blocks = BoundedCache<UInt64, (literal: HPACKHeaders, indexed: HPACKHeaders?)>(countLimit: WireResponseCache.maxEntries)

    /// The block of `prepared` (rendering `id`); with `repeated`, the indexable one.
    func block(for prepared: PreparedResponse, id: UInt64, repeated: Bool) -> HPACKHeaders {
        let cached = blocks.value(for: id)
        if let cached, !repeated { return cached.literal }
        if let indexed = cached?.indexed { return indexed }
        let literal = cached?.literal ?? HTTP2HeaderBlock.response(status: prepared.status, headers: prepared.headers)
        // The indexable block is made only for a rendering sent twice in a row: a client going
        // through many URLs would otherwise pay for a block it never sends.
        let indexed = repeated ? HTTP2HeaderBlock.response(status: prepared.status, headers: prepared.headers, indexingEverything: true) : nil
        blocks.insert((literal, indexed), for: id)
        return indexed ?? literal
    }
}
