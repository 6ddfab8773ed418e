import Testing
import Understudy
import UnderstudyImages
import UnderstudyTesting

/// `expectImage(_:matches:tolerance:)`: silent for what a correct client shows, an issue
/// naming the hazard and the difference for what a broken one shows.
@Suite struct HazardExpectationTests {
    @Test func theExpectedFigurePassesAndAnotherImageFailsNamingTheHazardAndTheDifference() throws {
        expectImage(try #require(Hazard.orientation6.expected), matches: .orientation6, tolerance: 0)
        // Built without encoding, so the test runs in builds without the C codecs too.
        let wrong = try #require(Hazard.cmyk.expected)
        withKnownIssue {
            expectImage(wrong, matches: .orientation6)
        } matching: { issue in
            issue.comments.contains { $0.rawValue.hasPrefix("orientation-6: Applies the EXIF Orientation 6") && $0.rawValue.contains("sizes differ: 96x32, expected 96x64") }
        }
        let numbered = Hazard.numberedImage(2)   // 96 x 64, as the figure, but other pixels
        withKnownIssue {
            expectImage(numbered, matches: .orientation1, tolerance: 12)
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("maximum") && $0.rawValue.contains("(tolerance 12)") }
        }
    }
}
