import Foundation
import Testing
import Understudy
import UnderstudyHAR
import UnderstudyImages
import UnderstudySupport

/// The `.stubbed` trait: every test it reaches runs with its own ``Stubbed/registry``,
/// ``Stubbed/session`` and, when asked, ``Stubbed/server``.
///
/// On a suite it reaches every test in it, and every argument of a parameterised test gets a
/// scope of its own, so tests running in parallel never share stubs or journals. When a suite
/// and a test inside it both carry the trait, the test's own applies.
///
/// At the end of each test it records an issue for every request no stub matched, with the
/// near-miss text of ``expectNoUnmatchedRequests(_:sourceLocation:)-(StubRegistry,_)``. When the test failed (an
/// issue recorded by anything during the test, or an error thrown out of it) it attaches the
/// journal as HAR (`journal.har`) and the near-miss report as text (`near-misses.txt`).
///
/// ```swift
/// @Suite(.stubbed) struct AvatarTests { ... }
/// @Test(.stubbed(from: "Tests/Stubs", server: true)) func viaTheServer() async throws { ... }
/// ```
public struct StubbedTrait: TestTrait, SuiteTrait, TestScoping {
    /// Where the stub files come from: a path as written and the file that wrote it, or a place
    /// of its own (a bundle's folder).
    enum StubFiles: Sendable {
        case path(String, filePath: String)
        case location(StubFileLocation)
    }

    let stubFiles: StubFiles?
    let startsServer: Bool
    let failsOnUnmatchedRequests: Bool
    /// The network the session and server deliver on, if any.
    let network: NetworkProfile?
    /// Tells this instance apart from an equal one on an enclosing suite.
    private let id = UUID()

    init(stubFiles: StubFiles?, startsServer: Bool, failsOnUnmatchedRequests: Bool, network: NetworkProfile? = nil) {
        self.network = network
        self.stubFiles = stubFiles
        self.startsServer = startsServer
        self.failsOnUnmatchedRequests = failsOnUnmatchedRequests
    }

    /// On a suite, the trait reaches every test in it.
    public var isRecursive: Bool { true }

    /// A scope for each test case (each argument of a parameterised test), none for a suite or
    /// for a test function as a whole; only the nearest `.stubbed` of a test applies.
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        guard testCase != nil, !test.isSuite else { return nil }
        // A test's traits list those it inherits first, its own last.
        if let nearest = test.traits.last(where: { $0 is StubbedTrait }) as? StubbedTrait, nearest.id != id {
            return nil
        }
        return self
    }

    /// Runs `function` with a fresh registry, session and server, then checks and reports.
    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let scope = try await StubbedScope.open(loading: try stubDirectory(), startingServer: startsServer, network: network)
        let failed = LockedState(false)
        // Every issue recorded while the test runs passes through this handler, after
        // `withKnownIssue` has marked the ones it expects, so `isFailure` says whether the
        // test failed.
        let observer = IssueHandlingTrait.compactMapIssues { issue in
            if issue.isFailure {
                failed.withLock { $0 = true }
            }
            return issue
        }
        let failsOnUnmatchedRequests = failsOnUnmatchedRequests
        var thrown: (any Error)?
        do {
            try await observer.provideScope(for: test, testCase: testCase) {
                var bodyError: (any Error)?
                do {
                    try await Stubbed.$current.withValue(scope) {
                        try await function()
                    }
                } catch {
                    bodyError = error
                }
                // Closed first, so that nothing is still in flight when the journal is read.
                await scope.close()
                if failsOnUnmatchedRequests {
                    Self.recordUnmatched(in: scope.registry.journal, at: test.sourceLocation)
                }
                if let bodyError {
                    throw bodyError
                }
            }
        } catch {
            thrown = error
            // A cancelled test (`Test.cancel()`) ends with an error but has not failed.
            if !(error is CancellationError), !Task.isCancelled {
                failed.withLock { $0 = true }
            }
        }
        if failed.withLock({ $0 }) {
            Self.attachReports(of: scope.registry.journal, at: test.sourceLocation)
        }
        if let thrown {
            throw thrown
        }
    }

    /// One issue per unmatched request, each with that request's near misses.
    private static func recordUnmatched(in journal: Journal, at location: SourceLocation) {
        for interaction in journal.unmatched {
            if let message = FailureMessages.unmatched([interaction]) {
                Issue.record(Comment(rawValue: message), sourceLocation: location)
            }
        }
    }

    private static func attachReports(of journal: Journal, at location: SourceLocation) {
        do {
            // As text: HAR is UTF-8 JSON, and `Data` is attachable only through a cross-import
            // overlay that SwiftPM does not apply on Linux.
            let har = String(decoding: try HARDocument(journal: journal).encoded(), as: UTF8.self)
            Attachment.record(har, named: "journal.har", sourceLocation: location)
        } catch {
            Attachment.record("the journal could not be written as HAR: \(error)", named: "journal.har.txt", sourceLocation: location)
        }
        Attachment.record(FailureMessages.nearMissReport(journal), named: "near-misses.txt", sourceLocation: location)
    }

    /// The stub-file directory, resolved against the package of the file that named it.
    private func stubDirectory() throws -> URL? {
        switch stubFiles {
        case nil:
            return nil
        case .location(let location)?:
            return try location.resolved()
        case .path(let path, let filePath)?:
            if path.hasPrefix("/") {
                return URL(fileURLWithPath: path)
            }
            guard let package = PackageDirectory.containing(filePath) else {
                throw StubbedTraitError(description: """
                    .stubbed(from: "\(path)") in \(filePath): no directory above that file \
                    holds a Package.swift, so the relative path has nothing to start from; pass an absolute path, \
                    or load from the test bundle: .stubbed(from: Bundle.module, subdirectory: "\(path.split(separator: "/").last.map(String.init) ?? path)")
                    """)
            }
            let directory = package.appendingPathComponent(path)
            guard FileManager.default.fileExists(atPath: directory.path) else {
                throw StubbedTraitError(description: """
                    .stubbed(from: "\(path)") in \(filePath): \(directory.path) does not exist \
                    (the path is taken relative to \(package.path), the package holding the test file)
                    """)
            }
            return directory
        }
    }
}
