import Foundation
import Testing
import Understudy
import UnderstudyImages
import UnderstudyTesting
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A user's Swift Testing suite with its stub files in the test bundle.
@Suite(.stubbed(from: Bundle.module, subdirectory: "Stubs"))
struct TraitTests {
    @Test func theTraitLoadsStubFilesFromTheTestBundle() async throws {
        let (png, _) = try await Stubbed.session.data(from: URL(string: "https://img.example.com/cat.png")!)
        let image = try RGBAImage(decoding: png)
        #expect(image.width == 6 && image.height == 4)
        expectRequested(Stubbed.registry, .path("/cat.png"), times: 1)
    }
}
