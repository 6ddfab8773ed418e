import UnderstudyImages

/// What an image response is served as: an encoding, the source's own bytes, or the format the
/// request's `Accept` header chooses.
///
/// Only ``encoded(_:)`` names bytes an encoder writes; ``original`` and
/// ``negotiated(among:)`` are choices the stub makes per request, so an encoder
/// (`ImageTranscoder`, `RGBAImage.encoded(as:)`) takes an `ImageFormat` and cannot be handed
/// them. Every encoding is spelled here as on `ImageFormat` and in stub files, with the stub
/// files' default quality where none is given:
///
/// ```swift
/// .image(.file(photo), as: .webp)                                  // `as: webp`: lossy WebP at 80
/// .image(.file(photo), as: .jpeg(quality: 70))
/// .image(.file(photo), as: .original)                              // the file's own bytes
/// .image(.file(photo), as: .negotiated)                            // WebP or PNG, by Accept
/// .image(.file(photo), as: .negotiated(among: [.avif, .webp, .jpeg]))
/// .image(.file(photo), as: .encoded(format))                       // an ImageFormat at hand
/// ```
public enum ServedImageFormat: Sendable, Hashable, CustomStringConvertible {
    /// The image encoded in this format (a source already in it is encoded again all the same).
    case encoded(ImageFormat)
    /// The source's own bytes, untouched: a generated image as PNG, an animation as lossless
    /// WebP; resized, encoded again in the source's own format.
    case original
    /// One of `formats`, chosen by the request's `Accept` header: the one it admits with the
    /// highest q; among equal q, one the header names explicitly before one admitted only by
    /// `image/*` or `*/*`; then the earlier in the list; 406 when it admits none.
    case negotiated(among: [ImageKind])

    /// The formats ``negotiated`` offers: WebP, then PNG.
    public static let defaultNegotiatedKinds: [ImageKind] = [.webp, .png]

    /// WebP or PNG, chosen by the request's `Accept` header: `.negotiated(among: [.webp, .png])`.
    public static var negotiated: ServedImageFormat { .negotiated(among: defaultNegotiatedKinds) }

    /// PNG (`ImageFormat.png`).
    public static var png: ServedImageFormat { .encoded(.png) }
    /// Lossy WebP at the stub files' default quality: `as: .webp` is `as: webp` in a stub file.
    public static var webp: ServedImageFormat { .encoded(.webp) }
    /// Lossy WebP at `quality`, 0 to 100 (`ImageFormat.webp(quality:)`).
    public static func webp(quality: Int) -> ServedImageFormat { .encoded(.webp(quality: quality)) }
    /// Lossless WebP (`ImageFormat.webpLossless`).
    public static var webpLossless: ServedImageFormat { .encoded(.webpLossless) }
    /// Baseline JPEG at the stub files' default quality.
    public static var jpeg: ServedImageFormat { .encoded(.jpeg) }
    /// Baseline JPEG at `quality`, 1 to 100 (`ImageFormat.jpeg(quality:)`).
    public static func jpeg(quality: Int) -> ServedImageFormat { .encoded(.jpeg(quality: quality)) }
    /// Progressive JPEG at the stub files' default quality.
    public static var jpegProgressive: ServedImageFormat { .encoded(.jpegProgressive) }
    /// Progressive JPEG at `quality`, 1 to 100 (`ImageFormat.jpegProgressive(quality:)`).
    public static func jpegProgressive(quality: Int) -> ServedImageFormat { .encoded(.jpegProgressive(quality: quality)) }
    /// AVIF at the stub files' default quality and speed.
    public static var avif: ServedImageFormat { .encoded(.avif) }
    /// AVIF at `quality` 0 to 100 and encoder `speed` 0 to 10 (`ImageFormat.avif(quality:speed:)`).
    public static func avif(quality: Int, speed: Int) -> ServedImageFormat { .encoded(.avif(quality: quality, speed: speed)) }
    /// HEIC at the stub files' default quality.
    public static var heic: ServedImageFormat { .encoded(.heic) }
    /// HEIC at `quality`, 0 to 100 (`ImageFormat.heic(quality:)`).
    public static func heic(quality: Int) -> ServedImageFormat { .encoded(.heic(quality: quality)) }
    /// GIF (`ImageFormat.gif`).
    public static var gif: ServedImageFormat { .encoded(.gif) }

    /// Whether this build can serve an image this way: ``original`` always; an encoding when
    /// this build encodes it (`ImageFormat.canEncode`); ``negotiated(among:)`` when it encodes
    /// at least one of the formats offered (it offers only those).
    public var canServe: Bool {
        switch self {
        case .encoded(let format): format.canEncode
        case .original: true
        case .negotiated(let kinds): kinds.contains(where: \.canEncode)
        }
    }

    /// The encoding's own spelling (`webp(q=80)`), `original`, or `negotiated(webp,png)`.
    public var description: String {
        switch self {
        case .encoded(let format): format.description
        case .original: "original"
        case .negotiated(let kinds): "negotiated(\(kinds.map(\.rawValue).joined(separator: ",")))"
        }
    }

    /// The choice in words, for messages: `WebP at quality 80`, `its original bytes`.
    var inWords: String {
        switch self {
        case .encoded(let format): format.inWords
        case .original: "its original bytes"
        case .negotiated: "the negotiated format"
        }
    }
}
