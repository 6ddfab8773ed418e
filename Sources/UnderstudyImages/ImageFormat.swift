/// An image encoding: what an encoder writes and a transcode produces.
///
/// `.png`, `.webp(quality:)`, `.webpLossless`, `.jpeg(quality:)`, `.jpegProgressive(quality:)`,
/// `.avif(quality:speed:)`, `.heic(quality:)` and `.gif`, each with the format of its bytes
/// (``kind``). Serving a source's own bytes or the format an `Accept` header chooses is the
/// response's choice, not an encoding: Understudy's `ServedImageFormat` holds it.
///
/// ```swift
/// .jpeg(quality: 85)
/// .webp                 // lossy WebP at the stub files' default quality
/// ```
public enum ImageFormat: Sendable, Hashable, CustomStringConvertible {
    /// PNG, lossless (8-bit RGBA, or RGB when every pixel is opaque).
    case png
    /// Lossy WebP at a quality from 0 (smallest) to 100 (best); values outside are clamped.
    case webp(quality: Int)
    /// Lossless WebP; the RGB values of fully transparent pixels are kept too.
    case webpLossless
    /// Baseline JPEG at a quality from 1 to 100 (85 in stub files; values outside are clamped);
    /// 4:2:0 chroma, transparency composited over white.
    case jpeg(quality: Int)
    /// Progressive JPEG at a quality from 1 to 100: browsers draw it in passes, coarse first
    /// (libjpeg's simple progression: 10 scans); otherwise as ``jpeg(quality:)``.
    case jpegProgressive(quality: Int)
    /// AVIF (AV1, 8-bit 4:2:0, alpha kept) at a quality from 0 to 100 (60 in stub files) and an
    /// encoder speed from 0 (slowest, smallest) to 10 (fastest; 8 in stub files); values outside
    /// are clamped.
    case avif(quality: Int, speed: Int)
    /// HEIC (HEVC, alpha kept) at a quality from 0 to 100 (60 in stub files; clamped).
    case heic(quality: Int)
    /// GIF with a palette chosen from the image by median cut (see ``RGBAImage/gifData()``);
    /// pixels with alpha 0 transparent; an animation stays animated.
    case gif

    /// Lossy WebP at the quality stub files use when they name none (``defaultWebPQuality``):
    /// `as: .webp` in Swift is `as: webp` in a stub file.
    public static var webp: ImageFormat { .webp(quality: defaultWebPQuality) }
    /// Baseline JPEG at the quality stub files use when they name none (``defaultJPEGQuality``).
    public static var jpeg: ImageFormat { .jpeg(quality: defaultJPEGQuality) }
    /// Progressive JPEG at the quality stub files use when they name none (``defaultJPEGQuality``).
    public static var jpegProgressive: ImageFormat { .jpegProgressive(quality: defaultJPEGQuality) }
    /// AVIF at the quality and speed stub files use when they name none.
    public static var avif: ImageFormat { .avif(quality: defaultAVIFQuality, speed: defaultAVIFSpeed) }
    /// HEIC at the quality stub files use when they name none (``defaultAVIFQuality``).
    public static var heic: ImageFormat { .heic(quality: defaultAVIFQuality) }

    /// The WebP quality of `.webp`, of `webp` in stub files and of `understudy transcode`.
    public static let defaultWebPQuality = 80
    /// The JPEG quality of `.jpeg` and `.jpegProgressive`, and of their stub-file names.
    public static let defaultJPEGQuality = 85
    /// The AVIF and HEIC quality of `.avif` and `.heic`, and of their stub-file names.
    public static let defaultAVIFQuality = 60
    /// The AVIF encoder speed of `.avif`, and of `avif` in stub files.
    public static let defaultAVIFSpeed = 8

    /// The format of the bytes this encoding writes.
    ///
    /// ```swift
    /// ImageFormat.jpegProgressive(quality: 85).kind.mimeType   // "image/jpeg"
    /// ```
    public var kind: ImageKind {
        switch self {
        case .png: .png
        case .webp, .webpLossless: .webp
        case .jpeg, .jpegProgressive: .jpeg
        case .avif: .avif
        case .heic: .heic
        case .gif: .gif
        }
    }

    /// A stable spelling, used in cache keys: `png`, `webp(q=80)`, `webp-lossless`, `jpeg(q=85)`,
    /// `jpeg-progressive(q=85)`, `avif(q=60,s=8)`, `heic(q=60)`, `gif` (options clamped to their
    /// range).
    public var description: String {
        switch self {
        case .png: "png"
        case .webp(let quality): "webp(q=\(Self.clampedQuality(quality)))"
        case .webpLossless: "webp-lossless"
        case .jpeg(let quality): "jpeg(q=\(Self.clampedJPEGQuality(quality)))"
        case .jpegProgressive(let quality): "jpeg-progressive(q=\(Self.clampedJPEGQuality(quality)))"
        case .avif(let quality, let speed): "avif(q=\(Self.clampedQuality(quality)),s=\(Self.clampedSpeed(speed)))"
        case .heic(let quality): "heic(q=\(Self.clampedQuality(quality)))"
        case .gif: "gif"
        }
    }
}

extension ImageFormat {
    static func clampedQuality(_ quality: Int) -> Int { min(max(quality, 0), 100) }
    static func clampedJPEGQuality(_ quality: Int) -> Int { min(max(quality, 1), 100) }
    static func clampedSpeed(_ speed: Int) -> Int { min(max(speed, 0), 10) }

    /// The same format with its options in range, so equal outputs share a cache key.
    var normalized: ImageFormat {
        switch self {
        case .webp(let quality): .webp(quality: Self.clampedQuality(quality))
        case .jpeg(let quality): .jpeg(quality: Self.clampedJPEGQuality(quality))
        case .jpegProgressive(let quality): .jpegProgressive(quality: Self.clampedJPEGQuality(quality))
        case .avif(let quality, let speed): .avif(quality: Self.clampedQuality(quality), speed: Self.clampedSpeed(speed))
        case .heic(let quality): .heic(quality: Self.clampedQuality(quality))
        case .png, .webpLossless, .gif: self
        }
    }

    /// Whether an animation keeps its frames in this encoding; PNG, JPEG and HEIC get the first.
    var animates: Bool {
        switch self {
        case .webp, .webpLossless, .avif, .gif: true
        case .png, .jpeg, .jpegProgressive, .heic: false
        }
    }

    /// The format in words, for messages: `PNG`, `WebP at quality 80`, `lossless WebP`,
    /// `progressive JPEG at quality 85`, `AVIF at quality 60, speed 8`.
    package var inWords: String {
        switch self {
        case .png: "PNG"
        case .webp(let quality): "WebP at quality \(quality)"
        case .webpLossless: "lossless WebP"
        case .jpeg(let quality): "JPEG at quality \(quality)"
        case .jpegProgressive(let quality): "progressive JPEG at quality \(quality)"
        case .avif(let quality, let speed): "AVIF at quality \(quality), speed \(speed)"
        case .heic(let quality): "HEIC at quality \(quality)"
        case .gif: "GIF"
        }
    }
}
