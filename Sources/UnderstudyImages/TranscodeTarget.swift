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

extension TranscodeTarget {
    /// The same target with its options in range, so equal outputs share a cache key.
    var normalized: TranscodeTarget {
        if case .webp(let quality) = self { return .webp(quality: Self.clampedQuality(quality)) }
        return self
    }
}
