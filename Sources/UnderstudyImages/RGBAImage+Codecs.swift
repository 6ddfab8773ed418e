import Foundation

extension RGBAImage {
    /// Decodes PNG, WebP or JPEG bytes; the format is recognised from the signature.
    ///
    /// PNG: every colour type and bit depth, palettes with transparency, Adam7 interlacing;
    /// 16-bit samples are rounded to 8 bits, and gamma chunks are ignored (samples are taken as
    /// stored). WebP: lossy, lossless, with alpha; for an animation, the first frame composited
    /// on the canvas. JPEG: baseline and progressive, greyscale, YCbCr, RGB and (Adobe) CMYK,
    /// with libjpeg's accurate DCT and smooth chroma upsampling; colour profiles are ignored.
    /// A JPEG that ends early, or whose compressed data is damaged, is an error (libjpeg itself
    /// would fill the rest with grey and carry on).
    ///
    /// ```swift
    /// let image = try RGBAImage(decoding: try Data(contentsOf: url))
    /// ```
    /// - Parameters:
    ///   - data: The encoded image.
    ///   - pixelLimit: The most pixels to accept, checked on the header before any allocation.
    /// - Throws: ``ImageError``: `.notAnImage`, `.unsupportedFormat` (GIF), `.truncated`,
    ///   `.corrupt`, `.tooLarge`, `.invalidDimensions`.
    public init(decoding data: Data, pixelLimit: Int = RGBAImage.defaultPixelLimit) throws {
        switch ImageKind.detect(data) {
        case .png:
            self = try PNGCodec.decode(data, pixelLimit: pixelLimit)
        case .webp:
            self = try WebPCodec.decode(data, pixelLimit: pixelLimit)
        case .jpeg:
            self = try JPEGCodec.decode(data, pixelLimit: pixelLimit)
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

    /// Encodes the image as JPEG with libjpeg-turbo: 4:2:0 chroma, the accurate integer DCT,
    /// standard Huffman tables for baseline (libjpeg's defaults, as `cjpeg -quality Q`), or
    /// libjpeg's simple progression of 10 scans. JPEG has no alpha: pixels that are not opaque
    /// are composited over white.
    /// - Parameters:
    ///   - quality: 1 (smallest) to 100 (best); values outside are clamped. 85 by default.
    ///   - progressive: a progressive JPEG, which browsers draw in passes, coarse first.
    /// - Throws: ``ImageError``: `.invalidDimensions` beyond 65500 pixels a side, `.encodingFailed`.
    public func jpegData(quality: Int = 85, progressive: Bool = false) throws -> Data {
        try JPEGCodec.encode(self, quality: quality, progressive: progressive)
    }

    /// Encodes the image for a transcode target.
    /// - Parameter target: PNG, lossy or lossless WebP, baseline or progressive JPEG.
    /// - Throws: ``ImageError``.
    public func encoded(as target: TranscodeTarget) throws -> Data {
        switch target {
        case .png: try pngData()
        case .webp(let quality): try webPData(quality: quality)
        case .webpLossless: try webPLosslessData()
        case .jpeg(let quality): try jpegData(quality: quality)
        case .jpegProgressive(let quality): try jpegData(quality: quality, progressive: true)
        }
    }
}
