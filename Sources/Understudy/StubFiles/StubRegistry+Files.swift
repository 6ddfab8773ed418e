import Foundation
import UnderstudyImages
import UnderstudySupport

extension StubRegistry {
    /// Adds the stubs of a directory of stub files (read recursively) or of one stub file, and
    /// remembers it for ``reset()``.
    ///
    /// Files load in byte-wise path order and stubs in file order, so among stubs of equal
    /// priority the one later in that order wins. A stub whose name is already registered
    /// replaces the old one. Nothing is added when any file has an issue.
    ///
    /// ```swift
    /// try stubs.load(from: URL(fileURLWithPath: "Stubs"))
    /// ```
    /// - Parameter url: the directory or file.
    /// - Throws: ``StubFileError`` listing every issue in every file.
    public func load(from url: URL) throws {
        let loaded = try StubFileLoader.load(from: url)
        load(loaded.stubs, tlsRules: loaded.tlsRules, from: .stubFiles(url))
    }

    /// Adds stubs read from `source` all at once, and remembers the source for ``reset()``.
    func load(_ stubs: [Stub], tlsRules: [TLSRule] = [], from source: StubSource) {
        state.withLock { state in
            state.insert(stubs)
            state.insert(tlsRules)
            if !state.sources.contains(source) {
                state.sources.append(source)
            }
        }
    }

    /// Goes back to the loaded files: drops every stub and `tls:` rule (those added in code too),
    /// re-reads each directory and file given to ``load(from:)-(URL)`` (and each WireMock directory
    /// given to ``load(wireMock:templatesEveryResponse:)``) from disk, in the order first loaded, so `times` and sequences start
    /// again, and clears the journal.
    ///
    /// Scenarios go back to ``Scenario/startedState``. When a file has become invalid nothing
    /// changes, neither the stubs nor the journal.
    /// - Throws: ``StubFileError`` listing every issue in every source.
    public func reset() throws {
        try reload(clearingJournal: true)
    }

    /// ``reset()``, keeping the journal when `clearingJournal` is false (WireMock's
    /// `POST /__admin/mappings/reset`).
    package func reload(clearingJournal: Bool) throws {
        let sources = state.withLock { $0.sources }
        var stubs: [Stub] = []
        var tlsRules: [TLSRule] = []
        var issues: [StubFileError.Issue] = []
        for source in sources {
            do {
                let loaded = try source.load()
                stubs += loaded.stubs
                tlsRules += loaded.tlsRules
            } catch let error as StubFileError {
                issues += error.issues
            }
        }
        guard issues.isEmpty else { throw StubFileError(issues: issues) }
        state.withLock { state in
            state.entries.removeAll()
            state.insert(stubs)
            state.tlsRules.removeAll()
            state.insert(tlsRules)
            state.scenarioStates.removeAll()
            state.hazardRequests.removeAll()
        }
        if clearingJournal { journal.clear() }
    }

    /// Adds `stubs` all at once, each replacing any stub of its name (a WireMock mapping: of its
    /// id, see ``StubRegistry``), after removing the stubs
    /// `removing` picks, under one lock: nothing is seen half-applied.
    package func replace(removing: (Stub) -> Bool = { _ in false }, adding stubs: [Stub]) {
        state.withLock { state in
            state.entries = state.entries.filter { !removing($0.value.stub) }
            state.insert(stubs)
        }
    }

    /// The directories and files ``load(from:)-(URL)`` and ``load(wireMock:templatesEveryResponse:)`` read, in order.
    public var loadedSources: [URL] {
        state.withLock { $0.sources.compactMap(\.url) }
    }
}

extension StubRegistry.State {
    /// Adds stubs in order under the lock, so a load appears all at once.
    ///
    /// A stub replaces the one of its name, except a WireMock mapping: its identity is its id,
    /// so it replaces the mapping of its id and, when its name is taken by another stub, is
    /// registered under a free variant of the name. Keys stay unique names, which the journal,
    /// near misses and `X-Understudy-Stub` go by, and no mapping silently replaces another.
    mutating func insert(_ stubs: [Stub]) {
        var keysByMappingID: [UUID: String]?
        for var stub in stubs {
            if let id = stub.wireMock?.id {
                if keysByMappingID == nil {
                    keysByMappingID = Dictionary(
                        entries.compactMap { key, entry in entry.stub.wireMock.map { ($0.id, key) } }, uniquingKeysWith: { first, _ in first }
                    )
                }
                if let key = keysByMappingID?.removeValue(forKey: id) { entries.removeValue(forKey: key) }
                if entries[stub.name] != nil { stub.name = StubRegistry.uniqueName(stub.name, in: entries) }
                keysByMappingID?[id] = stub.name
            } else if let replaced = entries[stub.name], let id = replaced.stub.wireMock?.id {
                keysByMappingID?.removeValue(forKey: id)
            }
            entries[stub.name] = StubEntry(stub: stub, sequence: nextSequence)
            nextSequence += 1
        }
        index = nil
    }

    /// Adds `tls:` rules in order; one for a host already ruled replaces the old one.
    fileprivate mutating func insert(_ rules: [TLSRule]) {
        for rule in rules {
            tlsRules.removeAll { $0.pattern == rule.pattern }
            tlsRules.append(rule)
        }
    }
}
