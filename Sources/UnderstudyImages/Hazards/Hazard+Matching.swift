extension Hazard {
    /// Why `image` is not what a correct client shows for this hazard, or `nil` when it is
    /// within `tolerance` of ``expected``: the message `XCTAssertImage(_:matches:tolerance:)`
    /// and `expectImage(_:matches:tolerance:)` fail with, naming the hazard, its correct
    /// behaviour and the difference.
    ///
    /// ```swift
    /// Hazard.orientation6.mismatch(shown, tolerance: 16)
    /// // "orientation-6: a correct client applies the EXIF Orientation 6 ...; the image differs
    /// //  from the expected one: sizes differ: 64x96, expected 96x64"
    /// ```
    /// - Parameters:
    ///   - image: The pixels the client under test decoded or displayed.
    ///   - tolerance: The largest channel difference allowed, in levels (lossy formats need some).
    public func mismatch(_ image: RGBAImage, tolerance: Int) -> String? {
        guard let expected else {
            return "\(name): this hazard's outcome is not pixels (\(correctBehaviour)); compare the client's error or cache instead"
        }
        let difference = image.difference(to: expected)
        guard !difference.isWithin(tolerance) else { return nil }
        return "\(name): \(correctBehaviour) The image differs from the expected one: \(difference) (tolerance \(tolerance))"
    }
}
