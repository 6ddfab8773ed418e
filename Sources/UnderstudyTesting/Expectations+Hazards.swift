import Testing
import Understudy
import UnderstudyImages

/// Records an issue unless `image`, as the client under test decoded it, is what a correct
/// client shows for `hazard` (`Hazard.expected`) within `tolerance` levels a channel; the
/// issue names the hazard, its correct behaviour and the difference.
///
/// ```swift
/// expectImage(try RGBAImage(decoding: drawn), matches: .cmyk, tolerance: 12)
/// ```
/// - Parameters:
///   - image: The decoded pixels.
///   - hazard: The hazard the image was loaded from.
///   - tolerance: The largest channel difference allowed (JPEG hazards need about 12).
///   - sourceLocation: Where the expectation is, for the issue; leave the default.
public func expectImage(
    _ image: RGBAImage, matches hazard: Hazard, tolerance: Int = 12,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    if let message = hazard.mismatch(image, tolerance: tolerance) {
        Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
    }
}
