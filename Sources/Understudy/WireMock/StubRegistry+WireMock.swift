import Foundation
import UnderstudyImages
import UnderstudySupport

extension StubRegistry {
    /// Adds the stubs of a WireMock directory (`mappings/*.json`, bodies in `__files/`) and
    /// remembers it for ``reset()``, as ``load(from:)-(URL)`` does for stub files.
    ///
    /// WireMock's priorities keep their order (1 first; a mapping without one is WireMock's 5,
    /// Understudy's 0) and, among equals, the mapping loaded last wins. Nothing is added when
    /// any file has an issue; see ``WireMockLoader`` for what is supported.
    ///
    /// ```swift
    /// try stubs.load(wireMock: URL(fileURLWithPath: "wiremock"))
    /// ```
    /// - Parameters:
    ///   - directory: the directory holding `mappings/` and `__files/`.
    ///   - templatesEveryResponse: whether every response is a template (WireMock's
    ///     `--global-response-templating`), not only those whose `transformers` ask for it.
    /// - Throws: ``StubFileError`` listing every issue in every mapping file.
    public func load(wireMock directory: URL, templatesEveryResponse: Bool = false) throws {
        let loaded = try WireMockLoader.load(from: directory, templatesEveryResponse: templatesEveryResponse)
        load(loaded.stubs, from: .wireMock(directory, templatesEveryResponse: templatesEveryResponse))
    }

    /// The WireMock directories given to ``load(wireMock:templatesEveryResponse:)``, in order,
    /// each with whether it templates every response.
    package var wireMockRoots: [(url: URL, templatesEveryResponse: Bool)] {
        state.withLock { state in
            state.sources.compactMap { source in
                if case .wireMock(let url, let templating) = source { return (url, templating) }
                return nil
            }
        }
    }
}
