import Foundation
import Understudy

/// A registry of `count` stubs shaped like a real suite's (most pin host, extension and path,
/// as HAR imports and per-asset stubs do; some use host globs, pin a method, or pin only a host
/// and a path prefix; a fixed handful pin nothing but a path prefix), and a request mix over
/// the same hosts that both hits and misses.
struct MatchingWorkload {
    static let extensions = ["jpg", "png", "webp", "gif", "json", "avif"]
    /// Stubs that pin no host, extension or method: every request is tested against them, so
    /// a realistic suite has a few catch-alls, not thousands. The same number in every size.
    static let unpinnedCount = 8
    static let stubsPerHost = 20

    let stubCount: Int
    let stubs: [Stub]
    let requests: [StubRequest]
    /// The URLs behind `requests`, for timing `StubRequest` construction.
    let urls: [(method: String, url: URL)]

    init(stubCount: Int, requestCount: Int, seed: UInt64 = 42) {
        self.stubCount = stubCount
        let hostCount = max(stubCount / Self.stubsPerHost, 1)
        let pinnedCount = stubCount - Self.unpinnedCount
        var random = SplitMix(seed: seed)
        var stubs: [Stub] = []
        stubs.reserveCapacity(stubCount)
        let response = StubResponse.status(200)

        func ext(_ i: Int) -> String { Self.extensions[i % Self.extensions.count] }

        for i in 0..<pinnedCount {
            let host = i % hostCount
            let matcher: RequestMatcher
            switch i % 20 {
            case 0..<13:  // per-asset image stub
                matcher = .host("img\(host).example.com") && .pathExtension(ext(i)) && .path("/photos/\(i).\(ext(i))")
            case 13, 14:  // CDN glob
                matcher = .host("*.cdn\(host).example.com") && .pathExtension(ext(i)) && .path("/assets/\(i).\(ext(i))")
            case 15, 16:  // method-pinned API stub
                matcher = .method("POST") && .host("api\(host).example.com") && .pathPrefix("/v1/orders/\(i)")
            case 17:  // GET pinned, exact path
                matcher = .method("GET") && .host("api\(host).example.com") && .path("/v1/users/\(i)")
            default:  // host and prefix only
                matcher = .host("img\(host).example.com") && .pathPrefix("/thumbs/\(i)/")
            }
            let priority = i % 50 == 0 ? 1 : 0
            stubs.append(Stub(named: "stub-\(i)", matching: matcher, priority: priority, response: response))
        }
        for k in 0..<Self.unpinnedCount {
            stubs.append(Stub(named: "unpinned-\(k)", matching: .pathPrefix("/static/v\(k)/"), response: response))
        }
        self.stubs = stubs

        // Requests: pick a kind, then a stub of that kind anywhere in the registry. About two
        // thirds hit; the rest miss on path, method or host.
        let blocks = max(pinnedCount / 20, 1)
        func pick(_ slots: ClosedRange<Int>) -> Int {
            let block = Int(random.next() % UInt64(blocks))
            let slot = slots.lowerBound + Int(random.next() % UInt64(slots.count))
            return min(block * 20 + slot, pinnedCount - 1)
        }
        var urls: [(String, URL)] = []
        for _ in 0..<requestCount {
            let roll = random.next() % 100
            let (method, string): (String, String)
            switch roll {
            case 0..<35:  // per-asset image stub: hit
                let i = pick(0...12)
                (method, string) = ("GET", "https://img\(i % hostCount).example.com/photos/\(i).\(ext(i))?w=320")
            case 35..<45:  // CDN glob: hit
                let i = pick(13...14)
                (method, string) = ("GET", "https://edge\(i % 7).cdn\(i % hostCount).example.com/assets/\(i).\(ext(i))")
            case 45..<53:  // method-pinned API stub: hit
                let i = pick(15...16)
                (method, string) = ("POST", "https://api\(i % hostCount).example.com/v1/orders/\(i)/items")
            case 53..<57:  // method-pinned API stub, wrong method: miss
                let i = pick(15...16)
                (method, string) = ("DELETE", "https://api\(i % hostCount).example.com/v1/orders/\(i)")
            case 57..<62:  // GET API stub: hit
                let i = pick(17...17)
                (method, string) = ("GET", "https://api\(i % hostCount).example.com/v1/users/\(i)")
            case 62..<67:  // host + prefix stub: hit
                let i = pick(18...19)
                (method, string) = ("GET", "https://img\(i % hostCount).example.com/thumbs/\(i)/small.jpg")
            case 67..<72:  // unpinned prefix stub: hit
                let k = Int(random.next() % UInt64(Self.unpinnedCount))
                (method, string) = ("GET", "https://assets.example.org/static/v\(k)/app.js")
            case 72..<90:  // known host and extension, unknown path: miss
                let i = pick(0...12)
                (method, string) = ("GET", "https://img\(i % hostCount).example.com/photos/missing-\(i).\(ext(i))")
            default:  // unknown host: miss
                let i = pick(0...19)
                (method, string) = ("GET", "https://unknown\(i).example.net/photos/\(i).\(ext(i))")
            }
            urls.append((method, URL(string: string)!))
        }
        self.urls = urls
        self.requests = urls.map { StubRequest(method: $0.0, url: $0.1, headers: ["Accept": "image/webp,*/*"]) }
    }

    func makeRegistry() -> StubRegistry {
        let registry = StubRegistry(journalLimit: 1)
        registry.add(stubs)
        return registry
    }
}
