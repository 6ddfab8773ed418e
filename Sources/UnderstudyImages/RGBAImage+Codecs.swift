import Foundation

extension RGBAImage {
    /// Decodes PNG or WebP bytes; the format is recognised from the signature.
    ///
    /// PNG: every colour type and bit depth, palettes with transparency, Adam7 interlacing;
    /// 16-bit samples are rounded to 8 bits, and gamma chunks are ignored (samples are taken as
    /// stored). WebP: lossy, lossless, with alpha; for an animation, the first frame composited
    /// on the canvas.
    ///
    /// ```swift
    /// let image = try RGBAImage(decoding: try Data(contentsOf: url))
    /// ```
    /// - Parameters:
    ///   - data: The encoded image.
    ///   - pixelLimit: The most pixels to accept, checked on the header before any allocation.
    /// - Throws: ``ImageError``: `.notAnImage`, `.unsupportedFormat` (JPEG, GIF), `.truncated`,
    ///   `.corrupt`, `.tooLarge`, `.invalidDimensions`.
    public init(decoding data: Data, pixelLimit: Int = RGBAImage.defaultPixelLimit) throws {
        switch ImageKind.detect(data) {
        case .png:
            self = try PNGCodec.decode(data, pixelLimit: pixelLimit)
        case .webp:
            self = try WebPCodec.decode(data, pixelLimit: pixelLimit)
        case .some(let kind):
            throw ImageError.unsupported(kind)
        case nil:
            if let kind = ImageKind.truncatedSignature(data) {
                throw ImageError.truncated(kind.name, byteCount: data.count)
            }
            throw ImageError.notAnImage(data)
        }
    }

    /// Encodes the image as PNG, quickly: zlib level 1 and the Sub filter (a mock server encodes
    /// on the request path), colour type RGB when every pixel is opaque, else RGBA.
    /// - Throws: ``ImageError`` with code `.encodingFailed`.
    public func pngData() throws -> Data {
        try PNGCodec.encode(self)
    }

    /// Encodes the image as lossy WebP (alpha, if any, is kept losslessly).
    /// - Parameter quality: 0 (smallest) to 100 (best); values outside are clamped.
    /// - Throws: ``ImageError``: `.invalidDimensions` beyond 16383 pixels a side, `.encodingFailed`.
    public func webPData(quality: Int) throws -> Data {
        try WebPCodec.encode(self, lossless: false, quality: quality)
    }

    /// Encodes the image as lossless WebP, keeping every pixel exactly, including the RGB of
    /// fully transparent ones.
    /// - Throws: ``ImageError``: `.invalidDimensions` beyond 16383 pixels a side, `.encodingFailed`.
    public func webPLosslessData() throws -> Data {
        try WebPCodec.encode(self, lossless: true, quality: 75)
    }

    /// Encodes the image for a transcode target.
    /// - Parameter target: PNG, lossy WebP or lossless WebP.
    /// - Throws: ``ImageError``.
    public func encoded(as target: TranscodeTarget) throws -> Data {
        switch target {
        case .png: try pngData()
        case .webp(let quality): try webPData(quality: quality)
        case .webpLossless: try webPLosslessData()
        }
    }
}
