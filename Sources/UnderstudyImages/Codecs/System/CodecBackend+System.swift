#if UNDERSTUDY_SYSTEM_CODECS
import Foundation

/// The codecs of Linux with the `SystemCodecs` trait: libwebp, libpng, libjpeg-turbo, libavif,
/// libheif and giflib, each behind its own `...Codec` enum. Every format decodes and encodes.
enum CodecBackend {
    /// The build, as errors name it.
    static let platform = "Linux with the SystemCodecs trait"

    static func canDecode(_ kind: ImageKind) -> Bool { true }

    static func canEncode(_ kind: ImageKind) -> Bool { true }

    static func decode(_ kind: ImageKind, _ data: Data, pixelLimit: Int) throws -> RGBAImage {
        switch kind {
        case .png: try PNGCodec.decode(data, pixelLimit: pixelLimit)
        case .webp: try WebPCodec.decode(data, pixelLimit: pixelLimit)
        case .jpeg: try JPEGCodec.decode(data, pixelLimit: pixelLimit)
        case .gif: try GIFCodec.decode(data, pixelLimit: pixelLimit)
        case .avif: try AVIFCodec.decode(data, pixelLimit: pixelLimit)
        case .heic: try HEIFCodec.decode(data, pixelLimit: pixelLimit)
        }
    }

    static func decodeFrames(_ kind: ImageKind, _ data: Data, pixelLimit: Int) throws -> [RGBAImage] {
        switch kind {
        case .gif: try GIFCodec.decodeAnimation(data, pixelLimit: pixelLimit).frames
        case .avif: try AVIFCodec.decodeFrames(data, pixelLimit: pixelLimit)
        case .png, .webp, .jpeg, .heic: [try decode(kind, data, pixelLimit: pixelLimit)]
        }
    }

    /// Decoded in libwebp's own layout, so its rescaler works on the pixels in place.
    static func decode(_ kind: ImageKind, _ data: Data, resizedTo resize: ImageResize, pixelLimit: Int) throws -> RGBAImage {
        var native = try NativeARGBImage(decoding: data, kind, pixelLimit: pixelLimit)
        return try native.resized(resize, pixelLimit: pixelLimit)
    }

    static func resize(_ image: RGBAImage, to plan: ImageResize.Plan) throws -> RGBAImage {
        try RGBAImage.libwebpResized(image, to: plan)
    }

    static func encode(_ image: RGBAImage, as target: ImageFormat) throws -> Data {
        switch target {
        case .png: try PNGCodec.encode(image)
        case .webp(let quality): try WebPCodec.encode(image, lossless: false, quality: quality)
        case .webpLossless: try WebPCodec.encode(image, lossless: true, quality: 75)
        case .jpeg(let quality): try JPEGCodec.encode(image, quality: quality, progressive: false)
        case .jpegProgressive(let quality): try JPEGCodec.encode(image, quality: quality, progressive: true)
        case .avif(let quality, let speed): try AVIFCodec.encode(image, quality: quality, speed: speed)
        case .heic(let quality): try HEIFCodec.encode(image, quality: quality)
        case .gif: try GIFCodec.encode(image)
        }
    }

    /// An animated WebP, AVIF sequence or GIF (``ImageCodecs`` sends no other target).
    static func encodeAnimation(_ frames: [RGBAImage], frameDuration: Duration, as target: ImageFormat) throws -> Data {
        switch target {
        case .webp(let quality): try WebPCodec.encodeAnimation(frames, frameDuration: frameDuration, lossless: false, quality: quality)
        case .avif(let quality, let speed): try AVIFCodec.encodeAnimation(frames, frameDuration: frameDuration, quality: quality, speed: speed)
        case .gif: try GIFCodec.encodeAnimation(frames, frameDuration: frameDuration)
        default: try WebPCodec.encodeAnimation(frames, frameDuration: frameDuration, lossless: true, quality: 75)
        }
    }
}
#endif
