#if !UNDERSTUDY_SYSTEM_CODECS && canImport(ImageIO)
import CoreGraphics

extension RGBAImage {
    /// `image`'s pixels as straight 8-bit RGBA, converted as ImageIO's decodes are (its own
    /// samples, no colour management): what the `CGImage` assertions compare.
    package init(cgImage image: CGImage) throws {
        self = try CodecBackend.rgba(image)
    }
}
#endif
