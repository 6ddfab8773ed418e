import Testing
import Understudy
import UnderstudyImages
import UnderstudyTesting

/// `expectImage(_:matches:tolerance:)`: silent for what a correct client shows, an issue
/// naming the hazard and the difference for what a broken one shows.
@Suite struct HazardExpectationTests {
    @Test func anUprightFigurePassesAndTheStoredSidewaysPixelsFail() throws {
        expectImage(try #require(Hazard.orientation6.expected), matches: .orientation6, tolerance: 0)
        let sideways = try RGBAImage(decoding: Hazard.orientation6.imageData())
        withKnownIssue {
            expectImage(sideways, matches: .orientation6)
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("orientation-6") && $0.rawValue.contains("sizes differ: 64x96, expected 96x64") }
        }
    }
}
