import Foundation
import Understudy
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The HTTP caching a session with a `URLCache` expects, done by the stub protocol itself,
/// because swift-corelibs-foundation leaves it to the protocol: for a data task it hands a
/// custom protocol the cached response (`URLProtocol.cachedResponse`) but stores a response in
/// the cache only when its own HTTP protocol loaded it, and its client ignores
/// `cachedResponseIsValid`. So a session's cache would never fill, or never revalidate.
///
/// With it, a cached response with validators is revalidated through the stubs: the request
/// carries `If-None-Match` / `If-Modified-Since`, the stub answers `304` (as the journal shows)
/// and the caller gets the cached body under the cached status, its headers updated from the
/// 304. A `200` to a GET is stored unless it says `no-store`. The request's cache policy is
/// honoured: `reloadIgnoringLocalCacheData` skips the cache, `returnCacheDataElseLoad` and
/// `returnCacheDataDontLoad` answer from it without asking the stubs. A request that carries
/// its own conditional headers is left alone: its caller does its own caching.
struct InProcessCache: @unchecked Sendable {  // URLCache is thread-safe; the rest is immutable
    let cache: URLCache
    let request: URLRequest
    /// The entry for the request, when it may be used.
    let cached: CachedURLResponse?

    /// The cache for a request of `task`'s session; `nil` without one (or off Linux, where the
    /// system does this itself), or for a request the cache has nothing to do with.
    init?(task: URLSessionTask?, request: URLRequest) {
        #if canImport(FoundationNetworking)
        guard let task, task is URLSessionDataTask,
              let session = CorelibsWorkarounds.reflectedChild(task, "session") as? URLSession,
              let cache = session.configuration.urlCache,
              (request.httpMethod ?? "GET") == "GET",
              !Self.conditionalHeaders.contains(where: { request.value(forHTTPHeaderField: $0) != nil })
        else { return nil }
        self.cache = cache
        self.request = request
        switch request.cachePolicy {
        case .reloadIgnoringLocalCacheData, .reloadIgnoringLocalAndRemoteCacheData:
            cached = nil
        default:
            cached = cache.cachedResponse(for: request)
        }
        #else
        return nil
        #endif
    }

    private static let conditionalHeaders = ["If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "If-Range", "Range"]

    /// The cached answer, when the request's policy takes it without asking the stubs.
    var answersWithoutLoading: CachedURLResponse? {
        switch request.cachePolicy {
        case .returnCacheDataElseLoad, .returnCacheDataDontLoad: return cached
        default: return nil
        }
    }

    /// Whether the request may not go to the stubs at all (`returnCacheDataDontLoad`).
    var forbidsLoading: Bool { request.cachePolicy == .returnCacheDataDontLoad }

    /// `request` with the validators of the cached response, when it has some.
    func revalidating(_ request: StubRequest) -> StubRequest {
        guard let response = cached?.response as? HTTPURLResponse else { return request }
        var headers = request.headers
        if let etag = response.value(forHTTPHeaderField: "ETag") {
            headers["If-None-Match"] = etag
        }
        if let modified = response.value(forHTTPHeaderField: "Last-Modified") {
            headers["If-Modified-Since"] = modified
        }
        guard headers != request.headers else { return request }
        return StubRequest(method: request.method, url: request.url, headers: headers, body: request.body, timeoutInterval: request.timeoutInterval)
    }

    /// What the caller gets for a 304 to a revalidation: the cached response, its headers
    /// updated by the 304's (RFC 9111 §4.3.4), and the cached body. Stored again, updated.
    func freshened(by notModified: PreparedResponse) -> (HTTPURLResponse, Data)? {
        guard let cached, let response = cached.response as? HTTPURLResponse, let url = response.url else { return nil }
        var headers = response.allHeaderFields.reduce(into: [String: String]()) { headers, field in
            if let name = field.key as? String, let value = field.value as? String { headers[name] = value }
        }
        for field in notModified.headers {
            for name in headers.keys where name.caseInsensitiveCompare(field.name) == .orderedSame {
                headers[name] = nil
            }
            headers[field.name] = field.value
        }
        guard let updated = HTTPURLResponse(url: url, statusCode: response.statusCode, httpVersion: "HTTP/1.1", headerFields: headers) else {
            return nil
        }
        cache.storeCachedResponse(CachedURLResponse(response: updated, data: cached.data), for: request)
        return (updated, cached.data)
    }

    /// Keeps a complete `200` to a GET, unless it says `no-store`.
    func store(_ response: HTTPURLResponse, body: Data) {
        guard response.statusCode == 200,
              !(response.value(forHTTPHeaderField: "Cache-Control")?.lowercased().contains("no-store") ?? false)
        else { return }
        cache.storeCachedResponse(CachedURLResponse(response: response, data: body), for: request)
    }
}
