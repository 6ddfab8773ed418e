import Understudy
import UnderstudyImages
import XCTest

/// Asserts that `image`, as the client under test decoded it, is what a correct client shows
/// for `hazard` (`Hazard.expected`), within `tolerance` levels a channel; fails with the
/// hazard's name, its correct behaviour and the difference.
///
/// ```swift
/// let shown = try RGBAImage(decoding: pngOfWhatTheViewDrew)
/// XCTAssertImage(shown, matches: .orientation6, tolerance: 16)
/// ```
/// - Parameters:
///   - image: The decoded pixels.
///   - hazard: The hazard the image was loaded from.
///   - tolerance: The largest channel difference allowed (JPEG hazards need about 12).
///   - file: Where the failure is reported; leave the default (the caller's file).
///   - line: Where the failure is reported; leave the default (the caller's line).
public func XCTAssertImage(
    _ image: RGBAImage, matches hazard: Hazard, tolerance: Int = 12,
    file: StaticString = #filePath, line: UInt = #line
) {
    if let message = hazard.mismatch(image, tolerance: tolerance) {
        XCTFail(message, file: file, line: line)
    }
}
