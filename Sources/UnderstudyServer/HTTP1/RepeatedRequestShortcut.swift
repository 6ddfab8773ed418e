import Foundation
internal import NIOCore
internal import NIOHTTP1

/// The first handler of an HTTP/1.1 connection: a read that is, byte for byte, the last request
/// a fixed canned stub answered is answered again by ``StubRequestHandler`` without going
/// through the request decoder and the handlers behind it.
///
/// A keep-alive client that asks for the same image over and over (a benchmark, a polling
/// client, a page reloaded) sends the same bytes each time. Parsing them anew, building the
/// head's strings and passing the parts along is a large part of the work of a small answer
/// such as a `304`.
///
/// It is armed only after a read that held exactly one whole request and nothing else: one
/// request passed on, no body, the read starting with its request line, ending with the blank
/// line, with one line per header field in between (so nothing of it was left from an earlier
/// read, and nothing of a next request is waiting in the decoder). Any other read disarms it and
/// goes the usual way, as does a repeat that comes while the connection is busy (pipelined,
/// mid-body, refusing) or after the stubs changed.
///
/// Arming costs a look at every byte of the read and a copy of it, which a client that never
/// repeats (a feed of different URLs, a header that changes every time) pays on every request
/// for nothing: it backs off as ``RepeatBackoff`` says.
final class RepeatedRequestShortcut: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let connection: HTTP1ConnectionHandler
    private let answerer: StubRequestHandler
    /// The bytes of the last request, when a repeat of them may be answered at once.
    private var armed: ByteBuffer?
    private var backoff = RepeatBackoff()

    init(connection: HTTP1ConnectionHandler, answerer: StubRequestHandler) {
        self.connection = connection
        self.answerer = answerer
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = unwrapInboundIn(data)
        if let armed, armed == bytes, connection.isBetweenRequests, answerer.answerRepeat(connection: connection, now: context.eventLoop.now) {
            backoff.repeated()
            return
        }
        if armed != nil {
            armed = nil
            backoff.missed()
        }
        let passedOn = connection.requestsPassedOn
        let repeatables = answerer.repeatableAnswerCount
        context.fireChannelRead(data)
        // Armed when this read was exactly the one request just answered from a fixed stub.
        guard backoff.keepsNext(), connection.requestsPassedOn == passedOn + 1, answerer.repeatableAnswerCount == repeatables + 1,
              let head = answerer.repeatableHead, connection.hasNothingPending,
              Self.isExactly(head, bytes)
        else { return }
        // A copy: holding the read's own buffer would keep NIO from reusing it for the next read.
        armed = ByteBuffer(bytes: bytes.readableBytesView)
    }

    /// Whether `bytes` are `head` and nothing else: its request line first, then one line per
    /// header field and the blank line that ends a head without a body.
    static func isExactly(_ head: HTTPRequestHead, _ bytes: ByteBuffer) -> Bool {
        guard head.method != .CONNECT, !head.headers.contains(name: "upgrade") else { return false }
        let view = bytes.readableBytesView
        guard view.count >= 4, view.starts(with: head.method.rawValue.utf8),
              view.dropFirst(head.method.rawValue.utf8.count).starts(with: " \(head.uri) ".utf8),
              view.suffix(4).elementsEqual("\r\n\r\n".utf8)
        else { return false }
        var lineEnds = 0
        var previous: UInt8 = 0
        for byte in view {
            if previous == UInt8(ascii: "\r"), byte == UInt8(ascii: "\n") { lineEnds += 1 }
            previous = byte
        }
        // The request line, each field's line, and the blank line.
        return lineEnds == head.headers.count + 2
    }
}
