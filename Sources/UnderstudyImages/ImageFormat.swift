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
