import Foundation
import Understudy
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The HTTP caching a session with a `URLCache` expects, for what the loading system leaves
/// to the protocol (see ``LoadingSystem/CacheStorage``).
///
/// Apple's URLSession stores what the protocol hands over with `.allowed` and hands the
/// protocol the stored entry (`URLProtocol.cachedResponse`). swift-corelibs-foundation hands
/// the entry too, but stores a response only when its own HTTP protocol loaded it and ignores
/// `cachedResponseIsValid`, so there the protocol finds the session's cache and stores itself.
/// Either way the protocol revalidates: a cached response with validators is revalidated
/// through the stubs (the request carries `If-None-Match` / `If-Modified-Since`, the stub
/// answers `304`, as the journal shows) and the caller gets the cached body under the cached
/// status, its headers updated from the 304. A `200` to a GET is stored unless it says
/// `no-store`. The request's cache policy is honoured: `reloadIgnoringLocalCacheData` skips
/// the cache, `returnCacheDataElseLoad` and `returnCacheDataDontLoad` answer from it without
/// asking the stubs. A request that carries its own conditional headers is left alone: its
/// caller does its own caching.
struct InProcessCache: @unchecked Sendable {  // URLCache is thread-safe; the rest is immutable
    /// The cache the protocol stores in itself (corelibs); `nil` where the system stores.
    let ownStore: URLCache?
    let request: URLRequest
    /// The entry for the request, when it may be used.
    let cached: CachedURLResponse?

    /// The caching for a request; `nil` for a request the cache has nothing to do with, or,
    /// where the protocol stores itself, when `task`'s session has no cache.
    /// - Parameters:
    ///   - task: the protocol's task (corelibs: its session's cache is found through it).
    ///   - request: the request.
    ///   - cachedResponse: the entry the loading system handed the protocol.
    ///   - storage: who stores responses.
    init?(task: URLSessionTask?, request: URLRequest, cachedResponse: CachedURLResponse?, storage: LoadingSystem.CacheStorage) {
        guard (request.httpMethod ?? "GET") == "GET",
              !Self.conditionalHeaders.contains(where: { request.value(forHTTPHeaderField: $0) != nil })
        else { return nil }
        let entry: CachedURLResponse?
        switch storage {
        case .system:
            ownStore = nil
            entry = cachedResponse
        case .protocolItself:
            guard let task, task is URLSessionDataTask,
                  let session = CorelibsWorkarounds.reflectedChild(task, "session") as? URLSession,
                  let cache = session.configuration.urlCache
            else { return nil }
            ownStore = cache
            entry = cache.cachedResponse(for: request)
        }
        self.request = request
        switch request.cachePolicy {
        case .reloadIgnoringLocalCacheData, .reloadIgnoringLocalAndRemoteCacheData:
            cached = nil
        default:
            cached = entry
        }
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
    /// updated by the 304's, and the cached body. Stored again, updated.
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
        ownStore?.storeCachedResponse(CachedURLResponse(response: updated, data: cached.data), for: request)
        return (updated, cached.data)
    }

    /// Whether `response` may be kept: a `200` that does not say `no-store`.
    private static func isStorable(_ response: HTTPURLResponse) -> Bool {
        response.statusCode == 200
            && !(response.value(forHTTPHeaderField: "Cache-Control")?.lowercased().contains("no-store") ?? false)
    }

    /// The policy `response` is handed to the client with: `.allowed` where the system stores
    /// and the response may be kept; otherwise `.notAllowed` (the protocol stores itself, at
    /// the end, once the whole body has arrived).
    func storagePolicy(for response: HTTPURLResponse) -> URLCache.StoragePolicy {
        ownStore == nil && Self.isStorable(response) ? .allowed : .notAllowed
    }

    /// Keeps a complete `200` to a GET, unless it says `no-store`, where the protocol stores.
    func store(_ response: HTTPURLResponse, body: Data) {
        guard let ownStore, Self.isStorable(response) else { return }
        ownStore.storeCachedResponse(CachedURLResponse(response: response, data: body), for: request)
    }
}
