import Foundation

/// A directory or file a registry loaded stubs from, and in which format, so ``StubRegistry/reset()``
/// can read it again.
enum StubSource: Sendable, Hashable {
    /// Understudy stub files (``StubFileLoader``).
    case stubFiles(URL)
    /// A WireMock directory of `mappings/` and `__files/` (``WireMockLoader``).
    case wireMock(URL, templatesEveryResponse: Bool)
    /// The hazard catalogue mounted at a path (``StubRegistry/stubHazards(under:)``).
    case hazards(mount: String)

    /// The directory or file; `nil` for the hazards, which are read from no file.
    var url: URL? {
        switch self {
        case .stubFiles(let url), .wireMock(let url, _): return url
        case .hazards: return nil
        }
    }

    func load() throws -> StubFileLoader.LoadedStubs {
        switch self {
        case .stubFiles(let url): return try StubFileLoader.load(from: url)
        case .wireMock(let url, let templating): return try WireMockLoader.load(from: url, templatesEveryResponse: templating)
        case .hazards(let mount): return StubFileLoader.LoadedStubs(stubs: StubRegistry.hazardStubs(under: mount), files: [])
        }
    }
}
