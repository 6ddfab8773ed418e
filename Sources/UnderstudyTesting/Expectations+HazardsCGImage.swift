#if canImport(CoreGraphics)
import CoreGraphics
import Testing
import UnderstudyImages

/// Records an issue unless `image`, as the client under test drew or decoded it, is what a
/// correct client shows for `hazard` within `tolerance` levels a channel: the `CGImage` form of
/// `expectImage(_:matches:tolerance:)` for `RGBAImage`, comparing the image's
/// own samples with no colour management.
///
/// - Parameters:
///   - image: The pixels the client produced.
///   - hazard: The hazard the image was loaded from.
///   - tolerance: The largest channel difference allowed (JPEG hazards need about 12).
///   - sourceLocation: Where the expectation is, for the issue; leave the default.
public func expectImage(
    _ image: CGImage, matches hazard: Hazard, tolerance: Int = 12,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    do {
        expectImage(try RGBAImage(cgImage: image), matches: hazard, tolerance: tolerance, sourceLocation: sourceLocation)
    } catch {
        Issue.record(Comment(rawValue: "\(hazard.name): cannot read the CGImage's pixels: \(error)"), sourceLocation: sourceLocation)
    }
}
#endif
