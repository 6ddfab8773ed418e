#if UNDERSTUDY_SYSTEM_CODECS
internal import CUnderstudyWebP
import Foundation

extension RGBAImage {
    /// The image resampled to `plan` by libwebp's rescaler.
    static func libwebpResized(_ image: RGBAImage, to plan: ImageResize.Plan) throws -> RGBAImage {
        let (width, height, pixels) = (image.width, image.height, image.pixels)
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

/// A decoded image whose pixels are 32-bit ARGB words in the machine's byte order (B, G, R, A
/// bytes on little-endian machines), the layout libwebp's pictures use. Decoding straight into it
/// lets a resize hand the pixels to libwebp's rescaler in place, with no conversion pass over the
/// full-size image: the resize path of ``ImageTranscoder``.
struct NativeARGBImage {
    let width: Int
    let height: Int
    var pixels: [UInt8]

    /// Decodes `data`, whose format ``ImageCodecs`` has recognised and checked: PNG, WebP and
    /// JPEG straight into this layout, the others through RGBA.
    init(decoding data: Data, _ kind: ImageKind, pixelLimit: Int) throws {
        let decoded: RGBAImage
        switch kind {
        case .png: decoded = try PNGCodec.decode(data, pixelLimit: pixelLimit, nativeARGB: true)
        case .webp: decoded = try WebPCodec.decode(data, pixelLimit: pixelLimit, nativeARGB: true)
        case .jpeg: decoded = try JPEGCodec.decode(data, pixelLimit: pixelLimit, nativeARGB: true)
        case .gif, .avif, .heic:
            // Their decoders give RGBA only: one pass to libwebp's order.
            decoded = Self.swizzled(try CodecBackend.decode(kind, data, pixelLimit: pixelLimit))
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
#endif
