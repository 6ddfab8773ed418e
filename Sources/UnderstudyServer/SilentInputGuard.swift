internal import NIOCore
internal import NIOHTTP1

/// Counts a connection's input that stops producing anything: more than `limit` bytes in a row
/// from which the request decoder makes no head, body or end. Heads have their own limits (431)
/// and bodies theirs (413); what is left is chunk framing, whose extensions NIO's parser skips
/// without bound. HTTP/1.1 asks a server to limit them, and a client could otherwise
/// send gigabytes as "a 5-byte body".
///
/// The connection's ``HTTP1Connection`` owns it, for the two handlers on either side of the
/// decoder: ``SilentInputCounter``, in front, counts each read it passes on (``arriving(_:)``)
/// and closes the connection when the count goes over (``isOverLimit``);
/// ``HTTP1ConnectionHandler``, behind, zeroes the count at every decoded part
/// (``partDecoded()``). It also keeps what was read since then, so that a head refused or never
/// finished is journaled with what was read. A part decoded early in a read zeroes that whole
/// read, so the count can fall short by one read (at most 64 KiB): the limit is therefore well
/// above the 80 KiB a legitimate head may take to arrive.
final class SilentInputGuard {
    /// Twice the bytes of names and values NIO's decoder allows in one head.
    static let defaultLimit = 2 * NIOHTTPDecoderLimitConfiguration().maxHeaderListSize

    private let limit: Int
    /// Bytes read since the decoder last produced a part.
    private(set) var silentBytes = 0
    /// What was read since the decoder last produced a part, up to 8 KiB: the first read as it
    /// came (shared storage, no copy, which is all a request that parses costs), later ones
    /// appended (a head trickling in).
    private(set) var silentRead: ByteBuffer?

    init(limit: Int = SilentInputGuard.defaultLimit) {
        self.limit = limit
    }

    /// The decoder produced a part: what was read so far made sense.
    func partDecoded() {
        silentBytes = 0
        silentRead = nil
    }

    /// `bytes` go to the decoder now.
    func arriving(_ bytes: ByteBuffer) {
        if silentBytes == 0 {
            silentRead = bytes
        } else if let kept = silentRead?.readableBytes, kept < 8 * 1024 {
            var bytes = bytes
            silentRead!.writeBuffer(&bytes)
        }
        silentBytes += bytes.readableBytes
    }

    /// Whether, after the decoder had the reads counted so far, too many bytes in a row made
    /// nothing: the connection is to close. Starts the count again.
    func isOverLimit() -> Bool {
        guard silentBytes > limit else { return false }
        partDecoded()
        return true
    }
}
