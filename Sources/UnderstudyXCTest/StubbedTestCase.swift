import Foundation
import Understudy
import UnderstudyURLProtocol
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A test case with a fresh registry and a session stubbed by it for every test, and an
/// assertion after each test that no request went unmatched. Override ``stubFiles`` to load
/// stub files into every test's registry, from the test bundle for instance.
///
/// ```swift
/// final class AvatarTests: StubbedTestCase {
///     func testLoadsAvatar() async throws {
///         stubs.stub(.path("/avatar.png"), response: .file(avatarURL))
///         let image = try await AvatarLoader(session: session).load()
///         XCTAssertRequested(stubs, .path("/avatar.png"), times: 1)
///     }
/// }
/// ```
open class StubbedTestCase: XCTestCase {
    /// This test's stubs.
    public private(set) var stubs = StubRegistry()
    /// A session answered by ``stubs``.
    public private(set) var session = URLSession(configuration: .ephemeral)
    /// Whether tearDown fails the test when a request went unmatched (default true).
    open var failsOnUnmatchedRequests: Bool { true }
    /// The network ``session`` delivers on when a stub names none (default `nil`: full speed);
    /// override it to run a whole test case on, say, `.slow3G`.
    open var network: NetworkProfile? { nil }
    /// Stub files loaded into ``stubs`` before every test (default `nil`: none), e.g. the test
    /// bundle's own: `override var stubFiles: StubFileLocation? { .bundle(.module, subdirectory: "Stubs") }`.
    /// A file with an issue fails the test, listing every issue.
    open var stubFiles: StubFileLocation? { nil }

    override open func setUp() {
        super.setUp()
        stubs = StubRegistry()
        if let stubFiles {
            do {
                try stubs.load(from: stubFiles)
            } catch {
                XCTFail("cannot load the stub files of \(stubFiles):\n\(error)")
            }
        }
        session = URLSession(configuration: .stubbed(by: stubs, network: network))
    }

    override open func tearDown() {
        if failsOnUnmatchedRequests, let message = FailureMessages.noUnmatchedRequests(stubs.journal) {
            XCTFail(message)
        }
        session.invalidateAndCancel()
        super.tearDown()
    }
}
