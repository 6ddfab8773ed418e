internal import NIOCore
internal import NIOHTTP1

/// An HTTP/1.1 connection's input that stops producing anything: more than ``limit`` bytes in a
/// row from which the request decoder makes no head, body or end. Heads have their own limits
/// (431) and bodies theirs (413); what is left is chunk framing, whose extensions NIO's parser
/// skips without bound. HTTP/1.1 asks a server to limit them, and a client could otherwise send
/// gigabytes as "a 5-byte body".
///
/// The connection's ``HTTP1RequestReader`` keeps it: each read arrives first (``arriving(_:)``,
/// from the ``ReadTap`` in front of the decoder), then the parts the decoder made of it, each of
/// which zeroes the count (``partDecoded()``). It also keeps what was read since the last part,
/// so that a head refused or never finished is journaled with what was read. A part decoded
/// early in a read zeroes that whole read, so the count can fall short by one read (at most
/// one read buffer's size): the limit is therefore well above what a legitimate head may take
/// to arrive.
struct SilentInput {
    /// Twice the bytes of names and values NIO's decoder allows in one head.
    static let limit = 2 * NIOHTTPDecoderLimitConfiguration().maxHeaderListSize
    /// The most of an unfinished head kept for the journal.
    private static let keptLimit = 8 * 1024

    /// Bytes read since the decoder last produced a part.
    private(set) var count = 0
    /// What was read since the decoder last produced a part, up to ``keptLimit``: the first read
    /// as it came (shared storage, no copy, which is all a request that parses costs), later ones
    /// appended (a head trickling in).
    private(set) var bytes: ByteBuffer?

    /// The decoder produced a part: what was read so far made sense.
    mutating func partDecoded() {
        count = 0
        bytes = nil
    }

    /// `read` goes to the decoder now.
    mutating func arriving(_ read: ByteBuffer) {
        if count == 0 {
            bytes = read
        } else if let kept = bytes?.readableBytes, kept < Self.keptLimit {
            var read = read
            bytes!.writeBuffer(&read)
        }
        count += read.readableBytes
    }

    /// Whether too many bytes in a row made nothing: the connection is to close.
    var isOverLimit: Bool { count > Self.limit }
}
