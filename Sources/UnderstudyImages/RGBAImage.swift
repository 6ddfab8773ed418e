/// A decoded image: 8-bit RGBA pixels, non-premultiplied, row-major, top row first.
///
/// ```swift
/// let image = try RGBAImage(decoding: webpBytes)
/// let png = try image.pngData()
/// ```
public struct RGBAImage: Sendable, Equatable {
    /// The default limit on `width * height` for decoding and generating: 64 Mpx, that is
    /// 67,108,864 pixels (8192 x 8192), or 256 MiB of RGBA. Anything larger is refused from its
    /// header, before any pixel memory is allocated.
    public static let defaultPixelLimit = 67_108_864

    /// Width in pixels, at least 1.
    public let width: Int
    /// Height in pixels, at least 1.
    public let height: Int
    /// `width * height * 4` bytes: R, G, B, A for each pixel, row after row.
    public let pixels: [UInt8]

    /// Creates an image from RGBA pixels.
    /// - Parameters:
    ///   - width: Width in pixels, at least 1.
    ///   - height: Height in pixels, at least 1.
    ///   - pixels: Exactly `width * height * 4` bytes of RGBA, row-major.
    /// - Throws: ``ImageError`` with code `.invalidDimensions` or `.invalidArgument`.
    public init(width: Int, height: Int, pixels: [UInt8]) throws {
        try Self.checkSize(width: width, height: height, pixelLimit: .max)
        guard pixels.count == width * height * 4 else {
            throw ImageError(
                .invalidArgument,
                "an RGBA image of \(width)x\(height) needs \(width * height * 4) bytes of pixels, got \(pixels.count)"
            )
        }
        self.init(unchecked: width, height, pixels)
    }

    init(unchecked width: Int, _ height: Int, _ pixels: [UInt8]) {
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// Whether every pixel has alpha 255.
    public var isOpaque: Bool {
        pixels.withUnsafeBufferPointer { buffer in
            var index = 3
            while index < buffer.count {
                if buffer[index] != 255 { return false }
                index += 4
            }
            return true
        }
    }

    /// Checks a size against the pixel limit without allocating anything.
    static func checkSize(width: Int, height: Int, pixelLimit: Int) throws {
        guard width >= 1, height >= 1 else {
            throw ImageError(
                .invalidDimensions,
                "invalid image size \(width)x\(height): width and height must be at least 1"
            )
        }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        // The second test keeps width * height * 4 representable whatever the limit.
        if overflow || pixels > pixelLimit || pixels > Int.max / 4 {
            throw ImageError.tooLarge(width: width, height: height, limit: pixelLimit)
        }
    }
}
