import Foundation

/// What the URL loading system around the stub protocol does for it, and so what the protocol
/// must do itself: Apple's URLSession or swift-corelibs-foundation's differ in three ways.
///
/// The choice is a value, read at run time, so that the Linux build compiles both paths and
/// its tests run Apple's with a client that keeps Apple's documented contract. Sessions get
/// ``current``; a test may pick the other through ``StubbingOptions``.
struct LoadingSystem: Sendable, Hashable {
    /// Who keeps responses in the session's `URLCache`.
    enum CacheStorage: Sendable, Hashable {
        /// Apple: the system stores what the protocol hands over with `.allowed`, and hands the
        /// protocol the stored entry as its `cachedResponse`; the protocol revalidates it.
        case system
        /// corelibs: the system stores only what its own HTTP protocol loaded and ignores
        /// `cachedResponseIsValid`, so the protocol finds the session's cache and stores itself.
        case protocolItself
    }

    /// Who follows a redirect.
    enum Redirects: Sendable, Hashable {
        /// Apple: the protocol reports it (`wasRedirectedTo`) and URLSession asks its delegate;
        /// if it follows, it stops this load and starts another; if the delegate refuses, the
        /// task ends with the redirect itself, which the protocol delivers after the report.
        case reported
        /// corelibs crashes on `wasRedirectedTo` from a custom protocol: the protocol asks the
        /// session's delegate itself, as corelibs' own HTTP protocol does, and follows or not.
        case followedByProtocol
    }

    /// Where the protocol calls its client.
    enum Callbacks: Sendable, Hashable {
        /// Apple: on the thread that called `startLoading`, through that thread's run loop, as
        /// URLProtocol's contract asks.
        case startingThread
        /// corelibs: on the task's work queue, where corelibs changes its unsynchronised task
        /// registry; from any other thread its client races with it.
        case workQueue
    }

    var cacheStorage: CacheStorage
    var redirects: Redirects
    var callbacks: Callbacks

    /// Apple's URLSession (macOS, iOS, tvOS, watchOS).
    static let apple = LoadingSystem(cacheStorage: .system, redirects: .reported, callbacks: .startingThread)

    /// swift-corelibs-foundation's URLSession (Linux).
    static let corelibs = LoadingSystem(cacheStorage: .protocolItself, redirects: .followedByProtocol, callbacks: .workQueue)

    /// The loading system this process's URLSession is.
    static var current: LoadingSystem {
        #if canImport(FoundationNetworking)
        .corelibs
        #else
        .apple
        #endif
    }
}
