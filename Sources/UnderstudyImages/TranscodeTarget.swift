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

    /// The format of the bytes this target produces.
    public var kind: ImageKind {
        switch self {
        case .png: .png
        case .webp, .webpLossless: .webp
        case .jpeg, .jpegProgressive: .jpeg
        }
    }

    /// The media type of the bytes this target produces.
    public var mimeType: String { kind.mimeType }

    /// A stable spelling, used in cache keys: `png`, `webp(q=80)`, `webp-lossless`, `jpeg(q=85)`,
    /// `jpeg-progressive(q=85)`.
    public var description: String {
        switch self {
        case .png: "png"
        case .webp(let quality): "webp(q=\(Self.clampedQuality(quality)))"
        case .webpLossless: "webp-lossless"
        case .jpeg(let quality): "jpeg(q=\(Self.clampedJPEGQuality(quality)))"
        case .jpegProgressive(let quality): "jpeg-progressive(q=\(Self.clampedJPEGQuality(quality)))"
        }
    }

    static func clampedQuality(_ quality: Int) -> Int { min(max(quality, 0), 100) }
    static func clampedJPEGQuality(_ quality: Int) -> Int { min(max(quality, 1), 100) }
}

extension TranscodeTarget {
    /// The same target with its options in range, so equal outputs share a cache key.
    var normalized: TranscodeTarget {
        switch self {
        case .webp(let quality): .webp(quality: Self.clampedQuality(quality))
        case .jpeg(let quality): .jpeg(quality: Self.clampedJPEGQuality(quality))
        case .jpegProgressive(let quality): .jpegProgressive(quality: Self.clampedJPEGQuality(quality))
        case .png, .webpLossless: self
        }
    }
}
