import NIOCore
import NIOEmbedded
import NIOHTTP1

/// Reads back what the server handlers wrote as a client would: its bytes go through NIOHTTP1's
/// response decoder, so a test sees heads, bodies and ends, and a framing mistake fails to parse.
///
/// An async test resumes on any thread after an `await`, and an `EmbeddedChannel` may only be
/// used on the thread that made it: so each look decodes every buffer read so far, in the same
/// writes, on a channel of its own, and returns the first part not returned before.
final class ResponseBytesReader {
    private let requests: Int
    private var buffers: [ByteBuffer] = []
    private var returned = 0

    /// - Parameter requests: how many responses to expect: the decoder reads each as the answer to
    ///   a `GET` it saw sent, and refuses responses nobody asked for.
    init(requests: Int = 8) {
        self.requests = requests
    }

    /// The next part decoded from `buffers`, feeding it as many of them as it takes; `nil`
    /// when they run out first.
    func next(from more: () async throws -> ByteBuffer?) async throws -> HTTPClientResponsePart? {
        while true {
            let parts = try decoded()
            if parts.count > returned {
                returned += 1
                return parts[returned - 1]
            }
            guard let buffer = try await more() else { return nil }
            buffers.append(buffer)
        }
    }

    /// Every part the buffers so far decode to.
    private func decoded() throws -> [HTTPClientResponsePart] {
        let decoder = EmbeddedChannel(handler: ByteToMessageHandler(HTTPResponseDecoder(leftOverBytesStrategy: .dropBytes)))
        defer { _ = try? decoder.finish() }
        for _ in 0..<requests {
            try decoder.writeOutbound(HTTPClientRequestPart.head(HTTPRequestHead(version: .http1_1, method: .GET, uri: "/")))
        }
        var parts: [HTTPClientResponsePart] = []
        for buffer in buffers {
            try decoder.writeInbound(buffer)
            while let part = try decoder.readInbound(as: HTTPClientResponsePart.self) {
                parts.append(part)
            }
        }
        return parts
    }
}
