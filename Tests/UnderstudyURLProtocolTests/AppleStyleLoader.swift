import Foundation
@testable import UnderstudyURLProtocol
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What Apple's URL loading system does around a custom protocol, as its documentation states
/// it, for running the stub protocol's Apple path on Linux: each load starts the protocol on a
/// thread of its own that runs a run loop (URLSession's loader thread); the entry in `cache` is
/// handed to the protocol as its `cachedResponse`; a response handed over `.allowed` is stored
/// once the load finishes; a reported redirect is followed (this load stopped, whatever it
/// still says ignored, a new one started for the target) or not, as the caller says.
final class AppleStyleLoader: @unchecked Sendable {
    /// One client call, and whether it came on the thread that called `startLoading`.
    struct Call: CustomStringConvertible {
        let name: String
        let onStartingThread: Bool
        var description: String { "\(name)\(onStartingThread ? "" : " (another thread)")" }
    }

    /// What one load ended with.
    struct Load {
        var calls: [Call] = []
        /// What a load the system had redirected away from said after its redirect.
        var ignored: [String] = []
        var response: HTTPURLResponse?
        var storagePolicy: URLCache.StoragePolicy?
        var data = Data()
        var error: (any Error)?
    }

    let protocolClass: URLProtocol.Type
    let cache = URLCache(memoryCapacity: 10_000_000, diskCapacity: 0, diskPath: nil)

    init(protocolClass: URLProtocol.Type) {
        self.protocolClass = protocolClass
    }

    /// Loads `request`, following a reported redirect when `follows`; waits at most 10 s.
    func load(_ request: URLRequest, follows: Bool = true) throws -> Load {
        let client = RecordingClient(follows: follows)
        let done = DispatchSemaphore(value: 0)
        let cached = cache.cachedResponse(for: request)
        let thread = Thread { [protocolClass, cache] in
            var current = protocolClass.init(request: request, cachedResponse: cached, client: client)
            client.startingThread = Thread.current
            current.startLoading()
            let deadline = Date().addingTimeInterval(10)
            while !client.finished, Date() < deadline {
                _ = RunLoop.current.run(mode: .default, before: Date().addingTimeInterval(0.01))
                if let redirect = client.takeRedirect() {
                    // Apple's system: stop this load, start one for the target.
                    current.stopLoading()
                    current = protocolClass.init(request: redirect, cachedResponse: cache.cachedResponse(for: redirect), client: client)
                    client.startingThread = Thread.current
                    current.startLoading()
                }
            }
            // Calls a stopped load might still make arrive on this run loop: give them a turn.
            _ = RunLoop.current.run(mode: .default, before: Date().addingTimeInterval(0.05))
            current.stopLoading()
            done.signal()
        }
        thread.start()
        guard done.wait(timeout: .now() + 15) == .success, client.finished else {
            throw URLError(.timedOut, userInfo: [NSLocalizedDescriptionKey: "the load did not finish: \(client.load.calls)"])
        }
        let load = client.load
        if load.storagePolicy == .allowed, load.error == nil, let response = load.response {
            cache.storeCachedResponse(CachedURLResponse(response: response, data: load.data), for: request)
        }
        return load
    }
}

/// A URL protocol client that records what it is told.
private final class RecordingClient: NSObject, URLProtocolClient, @unchecked Sendable {
    private let lock = NSLock()
    private var _load = AppleStyleLoader.Load()
    private var _finished = false
    private var _redirect: URLRequest?
    private var _startingThread: Thread?
    private var abandoned: Set<ObjectIdentifier> = []
    private let follows: Bool

    init(follows: Bool) {
        self.follows = follows
    }

    var load: AppleStyleLoader.Load { lock.withLock { _load } }
    var finished: Bool { lock.withLock { _finished } }
    var startingThread: Thread? {
        get { lock.withLock { _startingThread } }
        set { lock.withLock { _startingThread = newValue } }
    }

    func takeRedirect() -> URLRequest? {
        lock.withLock {
            defer { _redirect = nil }
            return _redirect
        }
    }

    private func record(_ name: String, from source: URLProtocol, _ change: (inout AppleStyleLoader.Load) -> Void = { _ in }) {
        lock.withLock {
            guard !abandoned.contains(ObjectIdentifier(source)) else { return _load.ignored.append(name) }
            _load.calls.append(AppleStyleLoader.Call(name: name, onStartingThread: Thread.current === _startingThread))
            change(&_load)
        }
    }

    func urlProtocol(_ protocol: URLProtocol, wasRedirectedTo request: URLRequest, redirectResponse: URLResponse) {
        record("wasRedirectedTo \(request.url?.path ?? "")", from: `protocol`)
        guard follows else { return }
        lock.withLock {
            _redirect = request
            abandoned.insert(ObjectIdentifier(`protocol`))
        }
    }

    func urlProtocol(_ protocol: URLProtocol, cachedResponseIsValid cachedResponse: CachedURLResponse) {
        record("cachedResponseIsValid", from: `protocol`)
    }

    func urlProtocol(_ protocol: URLProtocol, didReceive response: URLResponse, cacheStoragePolicy policy: URLCache.StoragePolicy) {
        let http = response as? HTTPURLResponse
        record("didReceive \(http?.statusCode ?? 0)", from: `protocol`) {
            $0.response = http
            $0.storagePolicy = policy
            $0.data = Data()
        }
    }

    func urlProtocol(_ protocol: URLProtocol, didLoad data: Data) {
        record("didLoad", from: `protocol`) { $0.data.append(data) }
    }

    func urlProtocolDidFinishLoading(_ protocol: URLProtocol) {
        record("didFinishLoading", from: `protocol`)
        lock.withLock { if !abandoned.contains(ObjectIdentifier(`protocol`)) { _finished = true } }
    }

    func urlProtocol(_ protocol: URLProtocol, didFailWithError error: any Error) {
        record("didFailWithError", from: `protocol`) { $0.error = error }
        lock.withLock { if !abandoned.contains(ObjectIdentifier(`protocol`)) { _finished = true } }
    }

    func urlProtocol(_ protocol: URLProtocol, didReceive challenge: URLAuthenticationChallenge) {
        record("didReceiveChallenge", from: `protocol`)
    }

    func urlProtocol(_ protocol: URLProtocol, didCancel challenge: URLAuthenticationChallenge) {
        record("didCancelChallenge", from: `protocol`)
    }
}
