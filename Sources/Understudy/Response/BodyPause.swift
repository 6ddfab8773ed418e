/// A stop in the middle of a body (`pause:` in stub files): after ``afterBytes`` bytes the body
/// waits until the ``Gate`` named ``gate`` is released, so a test can look at a half-loaded
/// image without a clock.
///
/// ```swift
/// stubs.stub(.path("/photo.jpg"), response: .file(progressiveJPEG).paused(afterBytes: 2048, gate: "first-scan"))
/// let gate = stubs.gate("first-scan")
/// try await gate.reached(count: 1)   // the client has the first 2048 bytes
/// gate.release()                     // and now the rest
/// ```
public struct BodyPause: Sendable, Hashable {
    /// Body bytes sent before the pause (of the body actually served: a range's, for a 206).
    public var afterBytes: Int
    /// The name of the gate that holds it.
    public var gate: String

    /// Creates a pause.
    /// - Parameters:
    ///   - afterBytes: body bytes sent before the body waits; 0 waits right after the head.
    ///   - gate: the name of the gate that holds it.
    public init(afterBytes: Int, gate: String) {
        self.afterBytes = max(0, afterBytes)
        self.gate = gate
    }
}
