import Foundation
import Understudy
@testable import UnderstudyURLProtocol
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Apple's loading system, as the stub protocol meets it, run on Linux: the protocol is started
/// on a thread with a run loop, as URLSession starts it on Apple platforms, and its client keeps
/// Apple's documented contract (it stores what is handed over `.allowed`, hands the next
/// protocol the stored entry as `cachedResponse`, and on a redirect either follows, stopping
/// the load, or lets the protocol finish with the redirect). corelibs' choices are tested with a
/// real URLSession here and in the other suites.
final class LoadingSystemTests: XCTestCase {
    private let body = Data((0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })

    private func options(_ system: LoadingSystem) -> StubbingOptions {
        var options = StubbingOptions()
        options.loadingSystem = system
        return options
    }

    func testTheAppleCachePathStoresThroughTheSystemAndRevalidatesWithTheValidators() throws {
        let stubs = StubRegistry()
        stubs.stub(.path("/photo.png"), named: "photo", response: .data(body, contentType: "image/png").cache(CachePolicy(control: "no-cache")))
        let loader = AppleStyleLoader(protocolClass: RegistrySlots.protocolClass(for: stubs, options: options(.apple)))
        let request = URLRequest(url: URL(string: "http://img.example.com/photo.png")!)

        let first = try loader.load(request)
        XCTAssertEqual(first.response?.statusCode, 200)
        XCTAssertEqual(first.data, body)
        XCTAssertEqual(first.storagePolicy, .allowed, "the system stores the response")
        let etag = try XCTUnwrap(first.response?.value(forHTTPHeaderField: "ETag"))
        XCTAssertNotNil(loader.cache.cachedResponse(for: request), "stored by the system, as Apple's is")

        let second = try loader.load(request)
        XCTAssertEqual(second.response?.statusCode, 200, "the caller sees the cached 200")
        XCTAssertEqual(second.data, body, "with the cached body")
        XCTAssertNil(second.error)
        XCTAssertEqual(stubs.journal.interactions.map { $0.status ?? 0 }, [200, 304], "revalidated through the stubs")
        XCTAssertEqual(stubs.journal.interactions[1].request.headers["If-None-Match"], etag)
        XCTAssertEqual(stubs.journal.interactions.map(\.bodyBytesSent), [body.count, 0])

        for load in [first, second] {
            XCTAssertFalse(load.calls.isEmpty)
            XCTAssertTrue(load.calls.allSatisfy { $0.onStartingThread }, "every client call on the thread that called startLoading: \(load.calls)")
        }
    }

    func testAResponseThatSaysNoStoreIsNotHandedOverForStorage() throws {
        let stubs = StubRegistry()
        stubs.stub(.path("/photo.png"), named: "photo", response: .data(body, contentType: "image/png").cache(CachePolicy(control: "no-store")))
        let loader = AppleStyleLoader(protocolClass: RegistrySlots.protocolClass(for: stubs, options: options(.apple)))
        let request = URLRequest(url: URL(string: "http://img.example.com/photo.png")!)
        XCTAssertEqual(try loader.load(request).storagePolicy, .notAllowed)
        XCTAssertEqual(try loader.load(request).storagePolicy, .notAllowed)
        XCTAssertNil(loader.cache.cachedResponse(for: request))
        XCTAssertEqual(stubs.journal.interactions.map { $0.status ?? 0 }, [200, 200])
        XCTAssertNil(stubs.journal.interactions[1].request.headers["If-None-Match"])
    }

    func testWhereTheProtocolStoresItselfItHandsNothingOverForStorage() throws {
        let stubs = StubRegistry()
        stubs.stub(.path("/photo.png"), named: "photo", response: .data(body, contentType: "image/png"))
        var corelibs = LoadingSystem.corelibs
        corelibs.callbacks = .startingThread
        let loader = AppleStyleLoader(protocolClass: RegistrySlots.protocolClass(for: stubs, options: options(corelibs)))
        let load = try loader.load(URLRequest(url: URL(string: "http://img.example.com/photo.png")!))
        XCTAssertEqual(load.data, body)
        XCTAssertEqual(load.storagePolicy, .notAllowed)
    }

    func testAReportedRedirectThatIsNotFollowedEndsWithTheRedirectAndItsBody() throws {
        let stubs = StubRegistry()
        stubs.stub(.path("/old.png"), named: "old", response: .redirect(to: "/new.png", status: 302))
        stubs.stub(.path("/new.png"), named: "new", response: .data(body, contentType: "image/png"))
        let loader = AppleStyleLoader(protocolClass: RegistrySlots.protocolClass(for: stubs, options: options(.apple)))

        let refused = try loader.load(URLRequest(url: URL(string: "http://img.example.com/old.png")!), follows: false)
        XCTAssertEqual(refused.calls.map(\.name).filter { $0 != "didLoad" }, ["wasRedirectedTo /new.png", "didReceive 302", "didFinishLoading"])
        XCTAssertEqual(refused.data.count, stubs.journal.interactions.first?.bodyBytesSent, "the redirect's own body")
        XCTAssertEqual(refused.response?.statusCode, 302)
        XCTAssertEqual(refused.response?.value(forHTTPHeaderField: "Location"), "/new.png")
        XCTAssertNil(refused.error)
        XCTAssertEqual(stubs.journal.interactions.map(\.stubName), ["old"], "the stubs are not asked for the target")

        let followed = try loader.load(URLRequest(url: URL(string: "http://img.example.com/old.png")!), follows: true)
        XCTAssertEqual(followed.calls.map(\.name), ["wasRedirectedTo /new.png", "didReceive 200", "didLoad", "didFinishLoading"])
        XCTAssertEqual(followed.response?.statusCode, 200, "the system's new load for the target")
        XCTAssertEqual(followed.data, body)
        XCTAssertTrue(followed.calls.allSatisfy { $0.onStartingThread }, "\(followed.calls)")
        XCTAssertEqual(stubs.journal.interactions.map(\.stubName), ["old", "old", "new"])
    }

    // MARK: corelibs' choices, through a real URLSession

    func testADelegateThatRefusesARedirectGetsTheRedirectAsTheResponse() async throws {
        let stubs = StubRegistry()
        stubs.stub(.path("/old.png"), named: "old", response: .redirect(to: "/new.png", status: 301))
        stubs.stub(.path("/new.png"), named: "new", response: .data(body, contentType: "image/png"))
        let delegate = RedirectDelegate(decision: { _ in nil })
        let session = URLSession(configuration: .stubbed(by: stubs), delegate: delegate, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }

        let (data, response, error) = await completionDataTask(session, URLRequest(url: URL(string: "http://img.example.com/old.png")!))
        XCTAssertNil(error)
        XCTAssertEqual(response?.statusCode, 301)
        XCTAssertEqual(response?.value(forHTTPHeaderField: "Location"), "/new.png")
        XCTAssertEqual(data?.count ?? 0, stubs.journal.interactions.first?.bodyBytesSent, "the redirect's own body")
        XCTAssertEqual(delegate.asked, ["http://img.example.com/new.png"])
        XCTAssertEqual(stubs.journal.interactions.map(\.stubName), ["old"])
    }

    func testADelegateThatChangesARedirectIsFollowedWhereItSays() async throws {
        let stubs = StubRegistry()
        stubs.stub(.path("/old.png"), named: "old", response: .redirect(to: "/new.png", status: 302))
        stubs.stub(.path("/new.png"), named: "new", response: .data(Data("new".utf8), contentType: "image/png"))
        stubs.stub(.path("/small.png"), named: "small", response: .data(Data("small".utf8), contentType: "image/png"))
        let delegate = RedirectDelegate(decision: { request in
            var changed = request
            changed.url = URL(string: "http://img.example.com/small.png")
            return changed
        })
        let session = URLSession(configuration: .stubbed(by: stubs), delegate: delegate, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }

        let (data, response, error) = await completionDataTask(session, URLRequest(url: URL(string: "http://img.example.com/old.png")!))
        XCTAssertNil(error)
        XCTAssertEqual(response?.statusCode, 200)
        XCTAssertEqual(data, Data("small".utf8))
        XCTAssertEqual(stubs.journal.interactions.map(\.stubName), ["old", "small"])
    }

    func testThisPlatformsLoadingSystemIsTheOneItsURLSessionIs() {
        #if canImport(FoundationNetworking)
        XCTAssertEqual(LoadingSystem.current, .corelibs)
        XCTAssertEqual(StubbingOptions().loadingSystem, .corelibs)
        #else
        XCTAssertEqual(LoadingSystem.current, .apple)
        XCTAssertEqual(StubbingOptions().loadingSystem, .apple)
        #endif
    }
}

/// A session delegate that decides redirects with `decision`, recording the URLs it was asked about.
private final class RedirectDelegate: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var _asked: [String] = []
    private let decision: @Sendable (URLRequest) -> URLRequest?

    init(decision: @escaping @Sendable (URLRequest) -> URLRequest?) {
        self.decision = decision
    }

    var asked: [String] { lock.withLock { _asked } }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        lock.withLock { _asked.append(request.url?.absoluteString ?? "") }
        completionHandler(decision(request))
    }
}
