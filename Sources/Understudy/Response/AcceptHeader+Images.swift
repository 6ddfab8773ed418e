import UnderstudyImages

extension AcceptHeader {
    /// The image formats `.negotiated` responses offer by default, in order of preference on ties.
    public static let offeredImageKinds: [ImageKind] = ServedImageFormat.defaultNegotiatedKinds

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

    /// The format among `kinds` this header admits with the highest q; among equal q, one the
    /// header names explicitly (`image/avif`) before one admitted only by `image/*` or `*/*`
    /// (a browser's `image/*` is no promise: Chrome cannot decode HEIC); then the one earlier
    /// in `kinds`. `nil` when it admits none of them (answer 406). With no Accept header every
    /// format is admitted at q 1 and none is named, so the first in `kinds` wins.
    ///
    /// ```swift
    /// AcceptHeader("image/avif,image/webp,*/*;q=0.8").negotiatedImageKind(among: [.jpeg, .webp])  // .webp
    /// AcceptHeader("image/*").negotiatedImageKind(among: [.jpeg, .webp])                          // .jpeg
    /// AcceptHeader("image/avif,image/webp,image/*").negotiatedImageKind(among: [.heic, .avif])    // .avif
    /// ```
    /// - Parameter kinds: the formats on offer, most preferred first.
    public func negotiatedImageKind(among kinds: [ImageKind]) -> ImageKind? {
        var best: (kind: ImageKind, q: Double, explicit: Bool)?
        for kind in kinds {
            let q = quality(of: kind.mimeType)
            guard q > 0 else { continue }
            let explicit = names(kind.mimeType)
            if let current = best {
                if q < current.q || (q == current.q && (current.explicit || !explicit)) { continue }
            }
            best = (kind, q, explicit)
        }
        return best?.kind
    }

    /// Whether a range of the header names `mediaType` itself (`type/subtype`), not by a wildcard.
    func names(_ mediaType: String) -> Bool {
        let parts = mediaType.lowercased().split(separator: "/").map(String.init)
        guard parts.count == 2, let ranges else { return false }
        return ranges.contains { $0.type == parts[0] && $0.subtype == parts[1] }
    }
}
