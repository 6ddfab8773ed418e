#if UNDERSTUDY_SYSTEM_CODECS || UNDERSTUDY_HOMEBREW_CODECS
internal import CUnderstudyAVIF
import Foundation

/// libavif: AV1 stills and sequences in the ISOBMFF container (HEIF's AVIF profile).
///
/// Decoding takes 8, 10 and 12-bit images, with or without alpha, to 8-bit RGBA; encoding
/// writes 8-bit YUV 4:2:0 (alpha as its own AV1 image) with the AV1 encoder libavif was built
/// with (libaom on Debian). libavif 0.11 has no `quality` setting: the quality is mapped to a
/// quantizer as libavif 1.x does (`(100 - q) * 63 / 100`, rounded), so both encode alike.
enum AVIFCodec {
    /// The quality stub files use when none is given.
    static let defaultQuality = 60
    /// The encoder speed stub files use when none is given: 0 slowest and best .. 10 fastest.
    static let defaultSpeed = 8

    /// The AV1 codecs libavif uses to encode and to decode, e.g. `("aom", "dav1d")`.
    static var codecNames: (encoder: String, decoder: String) {
        (String(cString: usd_avif_codec_name(1)), String(cString: usd_avif_codec_name(0)))
    }

    /// A parsed AVIF file: its header is read, nothing decoded yet.
    private final class Decoder {
        let decoder: UnsafeMutablePointer<avifDecoder>
        // libavif reads from these bytes until the decoder is destroyed.
        private let bytes: CBuffer
        private let data: Data

        init(_ data: Data, pixelLimit: Int) throws {
            self.data = data
            bytes = CBuffer(data)
            var decoder: UnsafeMutablePointer<avifDecoder>?
            var diagnostic = [CChar](repeating: 0, count: 256)
            let result = usd_avif_open(bytes.base, bytes.count, &decoder, &diagnostic, diagnostic.count)
            guard let decoder else {
                let said = String(decoding: diagnostic.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                throw AVIFCodec.error(result, data: data, stage: "avifDecoderParse", diagnostic: said)
            }
            self.decoder = decoder
            try RGBAImage.checkSize(width: width, height: height, pixelLimit: pixelLimit)
            usd_avif_limit(decoder, UInt32(clamping: pixelLimit))
        }

        deinit { avifDecoderDestroy(decoder) }

        var width: Int { Int(usd_avif_width(decoder)) }
        var height: Int { Int(usd_avif_height(decoder)) }
        var frameCount: Int { Int(usd_avif_frame_count(decoder)) }

        func nextFrame() throws -> RGBAImage {
            let count = width * height * 4
            var result: Int32 = 0
            let pixels = [UInt8](unsafeUninitializedCapacity: count) { out, initialized in
                result = usd_avif_next_rgba(decoder, out.baseAddress, count)
                initialized = count
            }
            guard result == 0 else { throw AVIFCodec.error(result, data: data, stage: "avifDecoderNextImage") }
            return RGBAImage(unchecked: width, height, pixels)
        }
    }

    /// The first (or only) image, as 8-bit RGBA.
    static func decode(_ data: Data, pixelLimit: Int) throws -> RGBAImage {
        try Decoder(data, pixelLimit: pixelLimit).nextFrame()
    }

    /// Every frame of a sequence (one for a still), all within `pixelLimit` pixels in all.
    static func decodeFrames(_ data: Data, pixelLimit: Int) throws -> [RGBAImage] {
        let decoder = try Decoder(data, pixelLimit: pixelLimit)
        let count = max(decoder.frameCount, 1)
        let (total, overflow) = (decoder.width * decoder.height).multipliedReportingOverflow(by: count)
        if overflow || total > pixelLimit {
            throw ImageError(
                .tooLarge,
                "an AVIF sequence of \(count) frames of \(decoder.width)x\(decoder.height) is over the limit of \(pixelLimit) pixels in all; raise pixelLimit to allow it"
            )
        }
        return try (0..<count).map { _ in try decoder.nextFrame() }
    }

    /// An AVIF still at `quality` (0..100, clamped) and encoder `speed` (0..10, clamped); alpha is
    /// kept unless every pixel is opaque.
    static func encode(_ image: RGBAImage, quality: Int, speed: Int) throws -> Data {
        try encodeSequence([image], frameDuration: nil, quality: quality, speed: speed)
    }

    /// A looping AVIF sequence (`avis`) of equally sized frames, each shown for `frameDuration`
    /// (in milliseconds: the timescale is 1000 Hz).
    static func encodeAnimation(_ frames: [RGBAImage], frameDuration: Duration, quality: Int, speed: Int) throws -> Data {
        guard !frames.isEmpty else { throw ImageError(.invalidArgument, "an animation needs at least 1 frame") }
        return try encodeSequence(frames, frameDuration: frameDuration, quality: quality, speed: speed)
    }

    private static func encodeSequence(_ frames: [RGBAImage], frameDuration: Duration?, quality: Int, speed: Int) throws -> Data {
        let encoder = try Encoder(quality: ImageFormat.clampedQuality(quality), speed: ImageFormat.clampedSpeed(speed))
        let duration = UInt64(max(1, frameDuration?.milliseconds ?? 1))
        // An alpha plane in every frame or in none: libavif requires the same planes throughout.
        let opaque = frames.allSatisfy(\.isOpaque)
        for frame in frames {
            try encoder.add(frame, opaque: opaque, duration: duration, single: frameDuration == nil)
        }
        return try encoder.finish()
    }

    /// libavif's encoder, freed with its owner.
    private final class Encoder {
        private let encoder: UnsafeMutablePointer<avifEncoder>

        init(quality: Int, speed: Int) throws {
            guard let encoder = usd_avif_encoder_new(Int32(quality), Int32(speed), 1000) else {
                throw ImageError(.encodingFailed, "AVIF encoding failed: libavif: avifEncoderCreate returned NULL (out of memory)")
            }
            self.encoder = encoder
        }

        deinit { avifEncoderDestroy(encoder) }

        func add(_ frame: RGBAImage, opaque: Bool, duration: UInt64, single: Bool) throws {
            let result = frame.pixels.withUnsafeBufferPointer { pixels in
                usd_avif_encoder_add(encoder, pixels.baseAddress, UInt32(frame.width), UInt32(frame.height), opaque ? 1 : 0, duration, single ? 1 : 0)
            }
            guard result == 0 else { throw AVIFCodec.encodingError(result, stage: "avifEncoderAddImage") }
        }

        func finish() throws -> Data {
            var output: UnsafeMutablePointer<UInt8>?
            var size = 0
            let result = usd_avif_encoder_finish(encoder, &output, &size)
            guard result == 0, let output else { throw AVIFCodec.encodingError(result, stage: "avifEncoderFinish") }
            defer { usd_avif_free(output) }
            return Data(bytes: output, count: size)
        }
    }

    private static func resultName(_ result: Int32) -> String {
        String(cString: avifResultToString(avifResult(rawValue: UInt32(bitPattern: result))))
    }

    private static func error(_ result: Int32, data: Data, stage: String, diagnostic: String = "") -> ImageError {
        let name = resultName(result) + (diagnostic.isEmpty ? "" : ": \(diagnostic)")
        switch avifResult(rawValue: UInt32(bitPattern: result)) {
        case AVIF_RESULT_TRUNCATED_DATA:
            return ImageError(.truncated, "truncated AVIF: the data ends after \(data.count) bytes, before the image is complete (libavif: \(stage): \(name), \(result))")
        default:
            return ImageError(.corrupt, "corrupt AVIF: libavif: \(stage): \(name) (\(result))")
        }
    }

    private static func encodingError(_ result: Int32, stage: String) -> ImageError {
        ImageError(.encodingFailed, "AVIF encoding failed: libavif: \(stage): \(resultName(result)) (\(result))")
    }
}
#endif
