internal import AsyncHTTPClient
import Foundation
internal import NIOCore
internal import NIOHTTP1
import Understudy
import UnderstudyImages
import UnderstudySupport

/// Fetches `.forward` stubs and `--proxy-unmatched` requests with AsyncHTTPClient, without
/// following redirects, so the client sees the upstream's own answer.
final class HTTPClientUpstream: UpstreamFetcher {
    /// The largest upstream body accepted.
    static let maximumBodySize = 256 * 1024 * 1024

    // Made on first use: most servers never forward, and an HTTPClient must be shut down.
    private let state = LockedState<(client: HTTPClient?, isShutDown: Bool)>((nil, false))

    private var client: HTTPClient {
        get throws {
            try state.withLock { state in
                guard !state.isShutDown else { throw RenderError(status: 502, "the server is stopping") }
                if let client = state.client { return client }
                var configuration = HTTPClient.Configuration()
                configuration.redirectConfiguration = .disallow
                configuration.decompression = .enabled(limit: .none)
                configuration.timeout = .init(connect: .seconds(5), read: .seconds(60))
                // A dead upstream should be a prompt 502 naming it, not retries until a deadline.
                configuration.connectionPool.retryConnectionEstablishment = false
                configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 64
                let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
                state.client = client
                return client
            }
        }
    }

    func fetch(_ request: StubRequest) async throws -> UpstreamResponse {
        var upstreamRequest = HTTPClientRequest(url: request.url.absoluteString)
        upstreamRequest.method = HTTPMethod(rawValue: request.method)
        for field in request.headers.removingHopByHop(also: Self.notForwarded) {
            upstreamRequest.headers.add(name: field.name, value: field.value)
        }
        if let body = request.body, !body.isEmpty {
            upstreamRequest.body = .bytes(ByteBuffer(bytes: body))
        }
        let response = try await client.execute(upstreamRequest, timeout: .seconds(60))
        let body = try await response.body.collect(upTo: Self.maximumBodySize)
        var headers = HeaderFields()
        for header in response.headers {
            headers.add(name: header.name, value: header.value)
        }
        return UpstreamResponse(status: Int(response.status.code), headers: headers, body: Data(body.readableBytesView))
    }

    func shutdown() async throws {
        let client = state.withLock { state -> HTTPClient? in
            state.isShutDown = true
            defer { state.client = nil }
            return state.client
        }
        try await client?.shutdown()
    }

    /// Request headers the client library sets itself for the upstream.
    static let notForwarded: Set<String> = ["host", "content-length"]
}
