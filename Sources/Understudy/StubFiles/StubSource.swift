import Foundation

/// A directory or file a registry loaded stubs from, and in which format, so ``StubRegistry/reset()``
/// can read it again.
enum StubSource: Sendable, Hashable {
    /// Understudy stub files (``StubFileLoader``).
    case stubFiles(URL)
    /// A WireMock directory of `mappings/` and `__files/` (``WireMockLoader``).
    case wireMock(URL, templatesEveryResponse: Bool)

    var url: URL {
        switch self {
        case .stubFiles(let url), .wireMock(let url, _): return url
        }
    }

    func load() throws -> StubFileLoader.LoadedStubs {
        switch self {
        case .stubFiles(let url): return try StubFileLoader.load(from: url)
        case .wireMock(let url, let templating): return try WireMockLoader.load(from: url, templatesEveryResponse: templating)
        }
    }
}
