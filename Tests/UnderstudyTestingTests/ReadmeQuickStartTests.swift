import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import Understudy
import UnderstudyTesting

// The README's Swift Testing quick start, verbatim: if this stops compiling or passing, the README
// is wrong. `ReadmeTests` checks that the README still shows this code.
@Suite(.stubbed) struct AvatarTests {
    @Test func loadsTheAvatarAndFollowsTheRedirect() async throws {
        let stubs = Stubbed.registry   // this test's own stubs; tests run in parallel without sharing them
        stubs.stub(.host("img.example.com") && .path("/old/avatar.png"), response: .redirect(to: "/avatar.png", status: 301))
        stubs.stub(.host("img.example.com") && .path("/avatar.png"), named: "avatar",
                   response: .data(Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])).delayed(by: .milliseconds(50)))
        stubs.stub(.pathExtension("webp"), response: .failure(.connectionReset))

        // The code under test gets `Stubbed.session`; every request it makes is answered by `stubs`.
        let (data, response) = try await Stubbed.session.data(from: URL(string: "https://img.example.com/old/avatar.png")!)

        #expect((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type") == "image/png")
        #expect(data.count == 8)
        expectRequested(stubs, .path("/avatar.png"), times: 1)
        expectRequestOrder(stubs, [.path("/old/avatar.png"), .path("/avatar.png")])
        // A request no stub matched would fail the test; a failed test carries the journal as HAR.
    }
}
