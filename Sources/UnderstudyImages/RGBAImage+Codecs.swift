import Foundation

extension RGBAImage {
    /// Decodes PNG, WebP, JPEG, GIF, AVIF or HEIC bytes; the format is recognised from the
    /// signature. Every size the file declares is held to `pixelLimit` before any decoder runs.
    ///
    /// What follows describes Linux's C codecs (the `SystemCodecs` trait). On Apple platforms
    /// ImageIO decodes what the OS reads; on Linux without the C codecs, PNG only. A format this
    /// build cannot decode throws ``ImageError`` with code `.unsupportedFormat` (see
    /// ``ImageKind/canDecode``).
    ///
    /// PNG: every colour type and bit depth, palettes with transparency, Adam7 interlacing;
    /// 16-bit samples are rounded to 8 bits, and gamma chunks are ignored (samples are taken as
    /// stored). WebP: lossy, lossless, with alpha; for an animation, the first frame composited
    /// on the canvas. JPEG: baseline and progressive, greyscale, YCbCr, RGB and (Adobe) CMYK,
    /// with libjpeg's accurate DCT and smooth chroma upsampling; colour profiles are ignored.
    /// A JPEG that ends early, or whose compressed data is damaged, is an error (libjpeg itself
    /// would fill the rest with grey and carry on). GIF: the first frame as a viewer shows it
    /// (the screen starts transparent). AVIF: the first image (of a sequence, the first frame),
    /// 8, 10 or 12 bits a sample, with alpha, converted to 8-bit RGBA by libavif. HEIC: the
    /// primary image, with its alpha image where there is one.
    ///
    /// ```swift
    /// let image = try RGBAImage(decoding: try Data(contentsOf: url))
    /// ```
    /// - Parameters:
    ///   - data: The encoded image.
    ///   - pixelLimit: The most pixels to accept, checked on the header before any allocation.
    /// - Throws: ``ImageError``: `.notAnImage`, `.truncated`, `.corrupt`, `.tooLarge`,
    ///   `.invalidDimensions`.
    public init(decoding data: Data, pixelLimit: Int = RGBAImage.defaultPixelLimit) throws {
        self = try ImageCodecs.decode(data, pixelLimit: pixelLimit)
    }

    /// Encodes the image as PNG, quickly: zlib level 1 and the Sub filter (a mock server encodes
    /// on the request path), colour type RGB when every pixel is opaque, else RGBA.
    /// - Throws: ``ImageError`` with code `.encodingFailed`.
    public func pngData() throws -> Data {
        try ImageCodecs.encode(self, as: .png)
    }

    /// Encodes the image as lossy WebP (alpha, if any, is kept losslessly).
    /// - Parameter quality: 0 (smallest) to 100 (best); values outside are clamped.
    /// - Throws: ``ImageError``: `.invalidDimensions` beyond 16383 pixels a side, `.encodingFailed`.
    public func webPData(quality: Int) throws -> Data {
        try ImageCodecs.encode(self, as: .webp(quality: quality))
    }

    /// Encodes the image as lossless WebP, keeping every pixel exactly, including the RGB of
    /// fully transparent ones.
    /// - Throws: ``ImageError``: `.invalidDimensions` beyond 16383 pixels a side, `.encodingFailed`.
    public func webPLosslessData() throws -> Data {
        try ImageCodecs.encode(self, as: .webpLossless)
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
        try ImageCodecs.encode(self, as: progressive ? .jpegProgressive(quality: quality) : .jpeg(quality: quality))
    }

    /// Decodes every frame of an animated GIF or an AVIF sequence, each as a viewer shows it
    /// (GIF disposal and transparency applied); any other image gives its one image (an
    /// animated WebP its first frame).
    ///
    /// ```swift
    /// let frames = try RGBAImage.frames(decoding: gifBytes)
    /// ```
    /// - Parameters:
    ///   - data: The encoded image.
    ///   - pixelLimit: The most pixels all frames together may have, checked before each frame
    ///     is allocated.
    /// - Throws: ``ImageError`` as ``init(decoding:pixelLimit:)``.
    public static func frames(decoding data: Data, pixelLimit: Int = RGBAImage.defaultPixelLimit) throws -> [RGBAImage] {
        try ImageCodecs.decodeFrames(data, pixelLimit: pixelLimit)
    }

    /// Encodes the image as AVIF with libavif (the AV1 encoder it was built with, libaom on
    /// Debian): 8-bit YUV 4:2:0, full range, BT.601 matrix; alpha as its own AV1 image unless
    /// every pixel is opaque.
    /// - Parameters:
    ///   - quality: 0 (smallest) to 100 (lossless colour); values outside are clamped.
    ///   - speed: the encoder's speed, 0 (slowest, smallest) to 10 (fastest); clamped.
    /// - Throws: ``ImageError`` with code `.encodingFailed`.
    public func avifData(quality: Int = 60, speed: Int = 8) throws -> Data {
        try ImageCodecs.encode(self, as: .avif(quality: quality, speed: speed))
    }

    /// Encodes the image as HEIC with libheif (HEVC through x265 on Debian), with an alpha
    /// image unless every pixel is opaque.
    /// - Parameter quality: 0 (smallest) to 100 (best); values outside are clamped.
    /// - Throws: ``ImageError`` with code `.encodingFailed` (also when libheif has no HEVC encoder).
    public func heicData(quality: Int = 60) throws -> Data {
        try ImageCodecs.encode(self, as: .heic(quality: quality))
    }

    /// Encodes the image as GIF89a with giflib. The palette is chosen from the image: its own
    /// colours when it has at most 256 (255 with transparency), otherwise median cut on a
    /// 5-bit-a-channel histogram, each entry the mean of its pixels, without dithering. Pixels
    /// with alpha 0 become transparent; any other alpha is dropped.
    /// - Throws: ``ImageError``: `.invalidDimensions` beyond 65535 pixels a side, `.encodingFailed`.
    public func gifData() throws -> Data {
        try ImageCodecs.encode(self, as: .gif)
    }

    /// Encodes the image in an encoding.
    /// - Parameter target: PNG, lossy or lossless WebP, baseline or progressive JPEG, AVIF, HEIC
    ///   or GIF.
    /// - Throws: ``ImageError``.
    public func encoded(as target: ImageFormat) throws -> Data {
        try ImageCodecs.encode(self, as: target)
    }
}
