import Foundation

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
    /// - Parameter directory: the directory holding `mappings/` and `__files/`.
    /// - Throws: ``StubFileError`` listing every issue in every mapping file.
    public func load(wireMock directory: URL) throws {
        load(try WireMockLoader.load(from: directory).stubs, from: .wireMock(directory))
    }
}
