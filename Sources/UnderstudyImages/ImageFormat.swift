/// The format an image response is served in.
///
/// `.png`, `.webp(quality:)`, `.webpLossless`, `.jpeg(quality:)`, `.jpegProgressive(quality:)`,
/// `.avif(quality:speed:)`, `.heic(quality:)` and `.gif` name an encoding (see ``transcodeTarget``); `.original` serves the source bytes as they are,
/// and `.negotiated(among:)` lets the request's `Accept` header choose among formats. Resolving
/// those two is the HTTP layer's job.
///
/// ```swift
/// .jpeg(quality: 85)
/// .negotiated                          // WebP or PNG
/// .negotiated(among: [.webp, .jpeg])   // as an image CDN does
/// ```
public enum ImageFormat: Sendable, Hashable {
    /// PNG, lossless.
    case png
    /// Lossy WebP at a quality from 0 (smallest) to 100 (best).
    case webp(quality: Int)
    /// Lossless WebP.
    case webpLossless
    /// Baseline JPEG at a quality from 1 to 100 (85 in stub files).
    case jpeg(quality: Int)
    /// Progressive JPEG at a quality from 1 to 100: browsers draw it in passes, coarse first.
    case jpegProgressive(quality: Int)
    /// AVIF at a quality from 0 to 100 (60 in stub files) and an encoder speed from 0 (slowest)
    /// to 10 (fastest; 8 in stub files).
    case avif(quality: Int, speed: Int)
    /// HEIC at a quality from 0 to 100 (60 in stub files).
    case heic(quality: Int)
    /// GIF, with a palette chosen from the image; an animation stays animated.
    case gif
    /// The source's own bytes, untouched.
    case original
    /// One of `formats`, chosen by the request's `Accept` header: the one it admits with the
    /// highest q; among equal q, one the header names explicitly before one admitted only by
    /// `image/*` or `*/*`; then the earlier in the list; 406 when it admits none.
    case negotiated(among: [ImageKind])

    /// WebP or PNG, chosen by the request's `Accept` header: `.negotiated(among: [.webp, .png])`.
    public static var negotiated: ImageFormat { .negotiated(among: defaultNegotiatedKinds) }

    /// The formats `.negotiated` offers: WebP, then PNG.
    public static let defaultNegotiatedKinds: [ImageKind] = [.webp, .png]

    /// The encoding this format names, or `nil` for `.original` and `.negotiated`.
    public var transcodeTarget: TranscodeTarget? {
        switch self {
        case .png: .png
        case .webp(let quality): .webp(quality: quality)
        case .webpLossless: .webpLossless
        case .jpeg(let quality): .jpeg(quality: quality)
        case .jpegProgressive(let quality): .jpegProgressive(quality: quality)
        case .avif(let quality, let speed): .avif(quality: quality, speed: speed)
        case .heic(let quality): .heic(quality: quality)
        case .gif: .gif
        case .original, .negotiated: nil
        }
    }
}
