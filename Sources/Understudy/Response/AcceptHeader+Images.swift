import UnderstudyImages

extension AcceptHeader {
    /// The image formats `.negotiated` responses offer by default, in order of preference on ties.
    public static let offeredImageKinds: [ImageKind] = ImageFormat.defaultNegotiatedKinds

    /// The format a `.negotiated` image response is served in: WebP when the header admits it
    /// with a q at least PNG's, else PNG when admitted, else `nil` (answer 406).
    ///
    /// No Accept header admits everything, so it gets WebP.
    /// ```swift
    /// AcceptHeader("image/png;q=0.5,image/webp;q=0.4").negotiatedImageKind  // .png
    /// AcceptHeader("text/html").negotiatedImageKind                          // nil
    /// ```
    public var negotiatedImageKind: ImageKind? {
        negotiatedImageKind(among: Self.offeredImageKinds)
    }

    /// The format among `kinds` this header admits with the highest q, ties going to the one
    /// earlier in `kinds`; `nil` when it admits none of them (answer 406).
    ///
    /// ```swift
    /// AcceptHeader("image/avif,image/webp,*/*;q=0.8").negotiatedImageKind(among: [.jpeg, .webp])  // .webp
    /// AcceptHeader("image/*").negotiatedImageKind(among: [.jpeg, .webp])                          // .jpeg
    /// ```
    /// - Parameter kinds: the formats on offer, most preferred first.
    public func negotiatedImageKind(among kinds: [ImageKind]) -> ImageKind? {
        var best: (kind: ImageKind, q: Double)?
        for kind in kinds {
            let q = quality(of: kind.mimeType)
            if q > 0, q > (best?.q ?? 0) { best = (kind, q) }
        }
        return best?.kind
    }
}
