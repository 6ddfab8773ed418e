internal import CUnderstudyWebP
import Foundation

extension RGBAImage {
    /// The image resized (SPEC section 12): area averaging when shrinking, so every source
    /// pixel counts (no nearest-neighbour aliasing), bilinear when enlarging; on
    /// alpha-premultiplied values, so transparent pixels do not bleed their colour. The
    /// resampler is libwebp's, the one `cwebp -resize` uses.
    ///
    /// ```swift
    /// let thumbnail = try photo.resized(ImageResize(width: 320))
    /// ```
    /// - Parameters:
    ///   - resize: the size wanted and how to fit it.
    ///   - pixelLimit: the most pixels the result may have.
    /// - Throws: ``ImageError`` with code `.invalidResize` for a width or height below 1 or a
    ///   result over `pixelLimit`.
    public func resized(_ resize: ImageResize, pixelLimit: Int = RGBAImage.defaultPixelLimit) throws -> RGBAImage {
        let plan = try resize.checkedPlan(width: width, height: height, pixelLimit: pixelLimit)
        if plan.width == width, plan.height == height, plan.cropWidth == width, plan.cropHeight == height {
            return self
        }
        let count = plan.width * plan.height * 4
        var ok: Int32 = 0
        let resampled = [UInt8](unsafeUninitializedCapacity: count) { out, initialized in
            ok = pixels.withUnsafeBufferPointer { source in
                usd_webp_rescale_rgba(
                    source.baseAddress, Int32(width * 4),
                    Int32(plan.cropX), Int32(plan.cropY), Int32(plan.cropWidth), Int32(plan.cropHeight),
                    out.baseAddress, Int32(plan.width), Int32(plan.height)
                )
            }
            initialized = count
        }
        guard ok != 0 else {
            throw ImageError(.encodingFailed, "cannot resize \(width)x\(height) to \(plan.width)x\(plan.height): libwebp's rescaler ran out of memory")
        }
        return RGBAImage(unchecked: plan.width, plan.height, resampled)
    }
}

extension ImageResize {
    /// The plan for a `width` x `height` source, checked.
    /// - Throws: ``ImageError`` with code `.invalidResize`.
    func checkedPlan(width: Int, height: Int, pixelLimit: Int) throws -> Plan {
        for (name, value) in [("width", self.width), ("height", self.height)] {
            if let value, value < 1 {
                throw ImageError(.invalidResize, "cannot resize to a \(name) of \(value): expected at least 1 pixel")
            }
        }
        let plan = plan(width: width, height: height)
        let (outputPixels, overflow) = plan.width.multipliedReportingOverflow(by: plan.height)
        if overflow || outputPixels > pixelLimit || outputPixels > Int.max / 4 {
            throw ImageError(
                .invalidResize,
                "cannot resize a \(width)x\(height) image to \(plan.width)x\(plan.height) (\(self)): the result is over the limit of \(pixelLimit) pixels"
            )
        }
        return plan
    }
}

/// A decoded image whose pixels are 32-bit ARGB words in the machine's byte order (B, G, R, A
/// bytes on little-endian machines), the layout libwebp's pictures use. Decoding straight into it
/// lets a resize hand the pixels to libwebp's rescaler in place, with no conversion pass over the
/// full-size image: the resize path of ``ImageTranscoder``.
struct NativeARGBImage {
    let width: Int
    let height: Int
    var pixels: [UInt8]

    /// Decodes PNG, WebP or JPEG bytes (see ``RGBAImage/init(decoding:pixelLimit:)``).
    init(decoding data: Data, pixelLimit: Int) throws {
        let decoded: RGBAImage
        switch ImageKind.detect(data) {
        case .png: decoded = try PNGCodec.decode(data, pixelLimit: pixelLimit, nativeARGB: true)
        case .webp: decoded = try WebPCodec.decode(data, pixelLimit: pixelLimit, nativeARGB: true)
        case .jpeg: decoded = try JPEGCodec.decode(data, pixelLimit: pixelLimit, nativeARGB: true)
        case .gif, .avif, .heic:
            // Their decoders give RGBA only: one pass to libwebp's order.
            decoded = Self.swizzled(try RGBAImage(decoding: data, pixelLimit: pixelLimit))
        case nil:
            // The RGBA decoder throws the error that says why (truncated, not an image).
            _ = try RGBAImage(decoding: data, pixelLimit: pixelLimit)
            throw ImageError.notAnImage(data)
        }
        width = decoded.width
        height = decoded.height
        pixels = decoded.pixels
    }

    /// RGBA bytes as ARGB words in the machine's byte order.
    private static func swizzled(_ image: RGBAImage) -> RGBAImage {
        var pixels = image.pixels
        if UInt32(1).littleEndian == 1 {
            pixels.withUnsafeMutableBufferPointer { buffer in
                for offset in stride(from: 0, to: buffer.count, by: 4) { buffer.swapAt(offset, offset + 2) }  // B G R A
            }
        } else {
            pixels.withUnsafeMutableBufferPointer { buffer in
                for offset in stride(from: 0, to: buffer.count, by: 4) {
                    let (r, g, b, a) = (buffer[offset], buffer[offset + 1], buffer[offset + 2], buffer[offset + 3])
                    (buffer[offset], buffer[offset + 1], buffer[offset + 2], buffer[offset + 3]) = (a, r, g, b)
                }
            }
        }
        return RGBAImage(unchecked: image.width, image.height, pixels)
    }

    /// The image resized as ``RGBAImage/resized(_:pixelLimit:)`` does, as RGBA. The pixels are
    /// used up: libwebp premultiplies their alpha in place.
    mutating func resized(_ resize: ImageResize, pixelLimit: Int) throws -> RGBAImage {
        let plan = try resize.checkedPlan(width: width, height: height, pixelLimit: pixelLimit)
        let count = plan.width * plan.height * 4
        var ok: Int32 = 0
        let stride = Int32(width)
        let resampled = [UInt8](unsafeUninitializedCapacity: count) { out, initialized in
            ok = pixels.withUnsafeMutableBufferPointer { source in
                usd_webp_rescale_native_argb(
                    source.baseAddress, stride,
                    Int32(plan.cropX), Int32(plan.cropY), Int32(plan.cropWidth), Int32(plan.cropHeight),
                    out.baseAddress, Int32(plan.width), Int32(plan.height)
                )
            }
            initialized = count
        }
        guard ok != 0 else {
            throw ImageError(.encodingFailed, "cannot resize \(width)x\(height) to \(plan.width)x\(plan.height): libwebp's rescaler ran out of memory")
        }
        return RGBAImage(unchecked: plan.width, plan.height, resampled)
    }
}
