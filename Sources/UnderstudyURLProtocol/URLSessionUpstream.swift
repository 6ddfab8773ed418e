import Foundation
import Understudy
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Fetches `.forward` and pass-through requests through a plain session that never sees the
/// stubs, and does not follow redirects (the client sees the upstream's own answer).
final class URLSessionUpstream: NSObject, UpstreamFetcher, URLSessionTaskDelegate, @unchecked Sendable {
    static let shared = URLSessionUpstream()

    private lazy var session: URLSession = URLSession(configuration: .ephemeral, delegate: self, delegateQueue: nil)
    private let sessionLock = NSLock()

    func fetch(_ request: StubRequest) async throws -> UpstreamResponse {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        for field in request.headers {
            urlRequest.addValue(field.value, forHTTPHeaderField: field.name)
        }
        urlRequest.httpBody = request.body
        let session = sessionLock.withLock { self.session }
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
