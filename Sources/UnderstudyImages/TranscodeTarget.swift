/// An encoding an image can be transcoded to.
public enum TranscodeTarget: Sendable, Hashable, CustomStringConvertible {
    /// PNG, lossless (8-bit RGBA, or RGB when every pixel is opaque).
    case png
    /// Lossy WebP at a quality from 0 (smallest) to 100 (best); values outside are clamped.
    case webp(quality: Int)
    /// Lossless WebP; the RGB values of fully transparent pixels are kept too.
    case webpLossless
    /// Baseline JPEG at a quality from 1 to 100 (values outside are clamped); 4:2:0 chroma,
    /// transparency composited over white.
    case jpeg(quality: Int)
    /// Progressive JPEG (libjpeg's simple progression: 10 scans), otherwise as ``jpeg(quality:)``.
    case jpegProgressive(quality: Int)
    /// AVIF (AV1, 8-bit 4:2:0, alpha kept) at a quality from 0 to 100 and an encoder speed from
    /// 0 (slowest, smallest) to 10 (fastest); values outside are clamped. Stub files default to
    /// quality 60, speed 8.
    case avif(quality: Int, speed: Int)
    /// HEIC (HEVC, alpha kept) at a quality from 0 to 100 (clamped); stub files default to 60.
    case heic(quality: Int)
    /// GIF with a palette chosen from the image by median cut (see ``RGBAImage/gifData()``);
    /// pixels with alpha 0 transparent.
    case gif

    /// The format of the bytes this target produces.
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

    /// The media type of the bytes this target produces.
    public var mimeType: String { kind.mimeType }

    /// A stable spelling, used in cache keys: `png`, `webp(q=80)`, `webp-lossless`, `jpeg(q=85)`,
    /// `jpeg-progressive(q=85)`, `avif(q=60,s=8)`, `heic(q=60)`, `gif`.
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

    static func clampedQuality(_ quality: Int) -> Int { min(max(quality, 0), 100) }
    static func clampedJPEGQuality(_ quality: Int) -> Int { min(max(quality, 1), 100) }
    static func clampedSpeed(_ speed: Int) -> Int { min(max(speed, 0), 10) }
}

extension TranscodeTarget {
    /// The same target with its options in range, so equal outputs share a cache key.
    var normalized: TranscodeTarget {
        switch self {
        case .webp(let quality): .webp(quality: Self.clampedQuality(quality))
        case .jpeg(let quality): .jpeg(quality: Self.clampedJPEGQuality(quality))
        case .jpegProgressive(let quality): .jpegProgressive(quality: Self.clampedJPEGQuality(quality))
        case .avif(let quality, let speed): .avif(quality: Self.clampedQuality(quality), speed: Self.clampedSpeed(speed))
        case .heic(let quality): .heic(quality: Self.clampedQuality(quality))
        case .png, .webpLossless, .gif: self
        }
    }
}
