import UnderstudyImages

extension ImageTranscoder {
    /// The transcoder a ``StubRegistry`` uses unless it is given its own: 64 MiB of cached
    /// output, 64 Mpx per image, shared by every registry in the process.
    ///
    /// ```swift
    /// let stubs = StubRegistry()                                        // uses .shared
    /// let isolated = StubRegistry(transcoder: ImageTranscoder(capacity: 8 << 20))
    /// ```
    public static let shared = ImageTranscoder()
}
