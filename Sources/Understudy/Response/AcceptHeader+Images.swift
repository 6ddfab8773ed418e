import UnderstudyImages

extension AcceptHeader {
    /// The image formats `.negotiated` responses offer, in order of preference on ties.
    public static let offeredImageKinds: [ImageKind] = [.webp, .png]

    /// The format a `.negotiated` image response is served in: WebP when the header admits it
    /// with a q at least PNG's, else PNG when admitted, else `nil` (answer 406).
    ///
    /// No Accept header admits everything, so it gets WebP.
    /// ```swift
    /// AcceptHeader("image/png;q=0.5,image/webp;q=0.4").negotiatedImageKind  // .png
    /// AcceptHeader("text/html").negotiatedImageKind                          // nil
    /// ```
    public var negotiatedImageKind: ImageKind? {
        let webp = quality(of: ImageKind.webp.mimeType)
        let png = quality(of: ImageKind.png.mimeType)
        if webp > 0, webp >= png { return .webp }
        if png > 0 { return .png }
        return nil
    }
}
