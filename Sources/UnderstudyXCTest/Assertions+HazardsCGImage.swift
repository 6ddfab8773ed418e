#if canImport(CoreGraphics)
import CoreGraphics
import UnderstudyImages
import XCTest

/// Asserts that `image`, as the client under test drew or decoded it, is what a correct client
/// shows for `hazard`, within `tolerance` levels a channel: the `CGImage` form of
/// `XCTAssertImage(_:matches:tolerance:)` for `RGBAImage`, comparing the image's
/// own samples with no colour management.
///
/// - Parameters:
///   - image: The pixels the client produced.
///   - hazard: The hazard the image was loaded from.
///   - tolerance: The largest channel difference allowed (JPEG hazards need about 12).
///   - file: Where the failure is reported; leave the default (the caller's file).
///   - line: Where the failure is reported; leave the default (the caller's line).
public func XCTAssertImage(
    _ image: CGImage, matches hazard: Hazard, tolerance: Int = 12,
    file: StaticString = #filePath, line: UInt = #line
) {
    do {
        XCTAssertImage(try RGBAImage(cgImage: image), matches: hazard, tolerance: tolerance, file: file, line: line)
    } catch {
        XCTFail("\(hazard.name): cannot read the CGImage's pixels: \(error)", file: file, line: line)
    }
}
#endif
