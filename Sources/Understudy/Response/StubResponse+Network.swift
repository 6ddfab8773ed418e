import Foundation

extension StubResponse {
    /// Delivers the response on `profile`: its latency before the first byte, its rate for the
    /// body. A ``delayed(by:)`` or ``throttled(to:)`` of the stub's own wins over the profile's
    /// figure; the profile wins over a server's or session's network.
    ///
    /// ```swift
    /// stubs.stub(.path("/photo.jpg"), response: .file(photo).network(.slow3G))
    /// ```
    public func network(_ profile: NetworkProfile) -> StubResponse {
        var copy = self
        copy.network = profile
        return copy
    }

    /// Delivers the body in pieces with `interval` between them: cut at byte offsets, after
    /// each scan of a progressive JPEG, or after each frame of an animated WebP, GIF or AVIF. The
    /// bytes are those served whole; a range (206) is cut where its bytes were cut in the whole.
    /// A body the cut does not fit (`.scans` of a PNG) answers 500 saying why.
    ///
    /// ```swift
    /// .file(progressiveJPEG).inPieces(.scans, interval: .milliseconds(200))
    /// ```
    /// - Parameters:
    ///   - cut: where the body is cut.
    ///   - interval: the pause between two pieces.
    public func inPieces(_ cut: BodyPieces.Cut, interval: Duration) -> StubResponse {
        var copy = self
        copy.pieces = BodyPieces(cut, interval: interval)
        return copy
    }
}
