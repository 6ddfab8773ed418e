/// The format an image response is served in (SPEC section 2).
///
/// `.png`, `.webp(quality:)` and `.webpLossless` name an encoding (see ``transcodeTarget``);
/// `.original` serves the source bytes as they are, and `.negotiated` lets the request's
/// `Accept` header choose between WebP and PNG. Resolving those two is the HTTP layer's job.
public enum ImageFormat: Sendable, Hashable {
    /// PNG, lossless.
    case png
    /// Lossy WebP at a quality from 0 (smallest) to 100 (best).
    case webp(quality: Int)
    /// Lossless WebP.
    case webpLossless
    /// The source's own bytes, untouched.
    case original
    /// WebP or PNG, chosen by the request's `Accept` header.
    case negotiated

    /// The encoding this format names, or `nil` for `.original` and `.negotiated`.
    public var transcodeTarget: TranscodeTarget? {
        switch self {
        case .png: .png
        case .webp(let quality): .webp(quality: quality)
        case .webpLossless: .webpLossless
        case .original, .negotiated: nil
        }
    }
}

/// An encoding an image can be transcoded to.
public enum TranscodeTarget: Sendable, Hashable, CustomStringConvertible {
    /// PNG, lossless (8-bit RGBA, or RGB when every pixel is opaque).
    case png
    /// Lossy WebP at a quality from 0 (smallest) to 100 (best); values outside are clamped.
    case webp(quality: Int)
    /// Lossless WebP; the RGB values of fully transparent pixels are kept too.
    case webpLossless

    /// The format of the bytes this target produces.
    public var kind: ImageKind {
        switch self {
        case .png: .png
        case .webp, .webpLossless: .webp
        }
    }

    /// The media type of the bytes this target produces.
    public var mimeType: String { kind.mimeType }

    /// A stable spelling, used in cache keys: `png`, `webp(q=80)`, `webp-lossless`.
    public var description: String {
        switch self {
        case .png: "png"
        case .webp(let quality): "webp(q=\(Self.clampedQuality(quality)))"
        case .webpLossless: "webp-lossless"
        }
    }

    static func clampedQuality(_ quality: Int) -> Int { min(max(quality, 0), 100) }
}
