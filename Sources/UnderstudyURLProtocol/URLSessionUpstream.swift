import Foundation
import Understudy
import UnderstudySupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Fetches `.forward` and pass-through requests through a plain session that never sees the
/// stubs, and does not follow redirects (the client sees the upstream's own answer).
final class URLSessionUpstream: NSObject, UpstreamFetcher, URLSessionTaskDelegate, Sendable {
    static let shared = URLSessionUpstream()

    // Made on first use: the session keeps its delegate (this object) alive.
    private let madeSession = LockedState<URLSession?>(nil)

    private var session: URLSession {
        madeSession.withLock { made in
            if let made { return made }
            let session = URLSession(configuration: .ephemeral, delegate: self, delegateQueue: nil)
            made = session
            return session
        }
    }

    func fetch(_ request: StubRequest) async throws -> UpstreamResponse {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        for field in request.headers {
            urlRequest.addValue(field.value, forHTTPHeaderField: field.name)
        }
        urlRequest.httpBody = request.body
        let (data, response) = try await session.data(for: urlRequest)
        guard let http = response as? HTTPURLResponse else {
            throw RenderError(status: 502, "upstream \(request.url.absoluteString) did not answer over HTTP")
        }
        var headers = HeaderFields()
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers.add(name: name, value: value) }
        }
        return UpstreamResponse(status: http.statusCode, headers: headers, body: data)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}
