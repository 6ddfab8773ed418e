import NIOCore
import NIOEmbedded
import NIOHTTP1

/// Reads back what the server handlers wrote as a client would: its bytes go through NIOHTTP1's
/// response decoder, so a test sees heads, bodies and ends, and a framing mistake fails to parse.
final class ResponseBytesReader {
    private let decoder = EmbeddedChannel(handler: ByteToMessageHandler(HTTPResponseDecoder(leftOverBytesStrategy: .dropBytes)))
    private var parts: [HTTPClientResponsePart] = []

    /// - Parameter requests: how many responses to expect: the decoder reads each as the answer to
    ///   a `GET` it saw sent, and refuses responses nobody asked for.
    init(requests: Int = 8) {
        for _ in 0..<requests {
            _ = try? decoder.writeOutbound(HTTPClientRequestPart.head(HTTPRequestHead(version: .http1_1, method: .GET, uri: "/")))
        }
    }

    /// The next part decoded from `buffers`, feeding it as many of them as it takes; `nil`
    /// when they run out first.
    func next(from buffers: () async throws -> ByteBuffer?) async throws -> HTTPClientResponsePart? {
        while parts.isEmpty {
            guard let buffer = try await buffers() else { return nil }
            try decoder.writeInbound(buffer)
            while let part = try decoder.readInbound(as: HTTPClientResponsePart.self) {
                parts.append(part)
            }
        }
        return parts.removeFirst()
    }

    deinit {
        _ = try? decoder.finish()
    }
}
