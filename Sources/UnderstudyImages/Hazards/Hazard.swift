/// An image hazard: what real image clients get wrong, served on purpose (SPEC 20).
///
/// Each hazard has a stable kebab-case ``name``, a ``group``, a one-line ``summary``, the
/// behaviour a correct client shows (``correctBehaviour``) and, where the outcome is pixels,
/// the ``expected`` image: the RGBA a correct client displays.
///
/// ```swift
/// let hazard = Hazard.orientation6
/// let jpeg = try hazard.imageData()          // EXIF Orientation 6, pixels stored sideways
/// let shown = try RGBAImage(decoding: screenshotPNG)
/// let difference = try shown.difference(to: hazard.expected!)
/// ```
public enum Hazard: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    // MARK: Pixels
    /// A JPEG whose EXIF Orientation (IFD0) is 1: stored as shown.
    case orientation1 = "orientation-1"
    /// A JPEG whose EXIF Orientation is 2: stored mirrored left to right.
    case orientation2 = "orientation-2"
    /// A JPEG whose EXIF Orientation is 3: stored upside down.
    case orientation3 = "orientation-3"
    /// A JPEG whose EXIF Orientation is 4: stored mirrored top to bottom.
    case orientation4 = "orientation-4"
    /// A JPEG whose EXIF Orientation is 5: stored transposed.
    case orientation5 = "orientation-5"
    /// A JPEG whose EXIF Orientation is 6: stored a quarter turn anticlockwise (shown after a
    /// quarter turn clockwise), as phones held upright write it.
    case orientation6 = "orientation-6"
    /// A JPEG whose EXIF Orientation is 7: stored transversed.
    case orientation7 = "orientation-7"
    /// A JPEG whose EXIF Orientation is 8: stored a quarter turn clockwise.
    case orientation8 = "orientation-8"
    /// A JPEG with an Orientation tag only in IFD1, the thumbnail's directory.
    case orientationInIFD1 = "orientation-in-ifd1"
    /// A CMYK JPEG with Adobe's APP14 marker, inverted as Photoshop writes it.
    case cmyk
    /// A YCCK JPEG with Adobe's APP14 marker (transform 2), as Photoshop writes it.
    case ycck
    /// A JPEG in Display P3 with its ICC profile embedded.
    case displayP3 = "display-p3"
    /// A JPEG in Adobe RGB (1998) with its ICC profile embedded.
    case adobeRGB = "adobe-rgb"
    /// A PNG with 16 bits a sample (RGBA).
    case png16Bit = "png-16-bit"
    /// A PNG of colour type 4: grey and alpha.
    case pngGreyAlpha = "png-grey-alpha"
    /// An indexed PNG of 16 colours whose tRNS chunk makes some of them transparent.
    case pngIndexedTransparency = "png-indexed-transparency"
    /// An Adam7-interlaced PNG.
    case pngInterlaced = "png-interlaced"

    // MARK: Memory
    /// A PNG that declares 30,000 x 30,000 pixels in a few kilobytes.
    case bombPNG = "bomb-png"
    /// A JPEG that declares 30,000 x 30,000 pixels in a few kilobytes.
    case bombJPEG = "bomb-jpeg"
    /// A GIF: a 1 x 1 frame on a 30,000 x 30,000 screen.
    case bombGIF = "bomb-gif"
    /// An animated WebP: a small frame on a 30,000 x 30,000 canvas.
    case bombWebP = "bomb-webp"
    /// A GIF of 300 frames on a 1,000 x 1,000 canvas.
    case animationHeavyGIF = "animation-heavy-gif"
    /// A WebP of 300 frames on a 1,000 x 1,000 canvas.
    case animationHeavyWebP = "animation-heavy-webp"
    /// A GIF whose frame delays are 0 and 10 ms.
    case animationZeroDelay = "animation-zero-delay"
    /// A GIF without a loop extension.
    case animationNoLoop = "animation-no-loop"
    /// An animation whose frames cover part of the canvas, with each disposal and blend mode.
    case animationPartialFrames = "animation-partial-frames"
    /// A GIF whose frames cover part of the screen, with each disposal method.
    case animationPartialFramesGIF = "animation-partial-frames-gif"
    /// A PNG with 256 KB of metadata ahead of its pixel data.
    case metadataBeforePixels = "metadata-before-pixels"

    // MARK: Headers
    /// A PNG served with no Content-Type.
    case contentTypeMissing = "content-type-missing"
    /// A PNG served as `application/octet-stream`.
    case contentTypeOctetStream = "content-type-octet-stream"
    /// PNG bytes labelled `image/jpeg`.
    case contentTypeWrong = "content-type-wrong"
    /// WebP bytes at a `.jpg` URL.
    case extensionMismatch = "extension-mismatch"
    /// A 200 HTML page at an image URL.
    case html200 = "html-200"
    /// A 302 to an HTML login page.
    case captivePortal = "captive-portal"
    /// PNG bytes with `Content-Encoding: gzip`.
    case gzipEncoded = "gzip-encoded"
    /// Gzipped PNG bytes without a `Content-Encoding` header.
    case gzipUnlabelled = "gzip-unlabelled"
    /// A Content-Length longer than the body sent.
    case lengthLongerThanBody = "length-longer-than-body"
    /// A 200 with an empty body.
    case empty200 = "empty-200"
    /// A format chosen by `Accept` with no `Vary: Accept`.
    case negotiatedWithoutVary = "negotiated-without-vary"

    // MARK: Cache
    /// A new image on every request, under `Cache-Control: no-cache`.
    case changesNoCache = "changes-no-cache"
    /// A new image on every request, under `Cache-Control: max-age=0`.
    case changesMaxAge0 = "changes-max-age-0"
    /// A new image on every request, under `Cache-Control: no-store`.
    case changesNoStore = "changes-no-store"
    /// A new image on every request, under `Cache-Control: must-revalidate, max-age=0`.
    case changesMustRevalidate = "changes-must-revalidate"
    /// A new image on every request, under `Pragma: no-cache` alone.
    case changesPragmaNoCache = "changes-pragma-no-cache"
    /// A new image on every request, under an `Expires` in the past.
    case changesExpired = "changes-expired"
    /// A 304 to a request that sent no validator.
    case notModifiedWithoutValidator = "not-modified-without-validator"
    /// An image, then a 503 HTML page.
    case errorAfterImage = "error-after-image"
    /// A body cut short, then the whole one.
    case truncatedThenWhole = "truncated-then-whole"

    /// The hazard's stable kebab-case name, as stub files and URLs spell it.
    public var name: String { rawValue }

    /// The name.
    public var description: String { rawValue }

    /// The hazard named `name`, if there is one.
    /// - Parameter name: A kebab-case name such as `orientation-6`.
    public init?(named name: String) {
        self.init(rawValue: name)
    }

    /// Every hazard's name, in catalogue order: what an error lists for an unknown one.
    public static var allNames: [String] { allCases.map(\.name) }
}
