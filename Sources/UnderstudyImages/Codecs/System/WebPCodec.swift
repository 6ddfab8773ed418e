#if UNDERSTUDY_SYSTEM_CODECS || UNDERSTUDY_HOMEBREW_CODECS
internal import CUnderstudyWebP
import Foundation

/// libwebp, libwebpdemux and libwebpmux.
enum WebPCodec {
    /// WebP stores each dimension in 14 bits.
    static let maxDimension = 16383
    /// libwebp's default effort (cwebp's `-m 4`), a balance of speed and size.
    static let method: Int32 = 4

    /// With `nativeARGB` the pixels are ARGB words in the machine's byte order (see
    /// ``NativeARGBImage``), not RGBA.
    static func decode(_ data: Data, pixelLimit: Int, nativeARGB: Bool = false) throws -> RGBAImage {
        var features = WebPBitstreamFeatures()
        let featureStatus = data.withUnsafeBytes { raw in
            WebPGetFeatures(raw.bindMemory(to: UInt8.self).baseAddress, raw.count, &features)
        }
        try check(featureStatus.rawValue, byteCount: data.count)
        let width = Int(features.width)
        let height = Int(features.height)
        try RGBAImage.checkSize(width: width, height: height, pixelLimit: pixelLimit)
        let count = width * height * 4
        if features.has_animation != 0 {
            var stage: UnsafePointer<CChar>?
            var ok: Int32 = 0
            let pixels = [UInt8](unsafeUninitializedCapacity: count) { out, initialized in
                ok = data.withUnsafeBytes { raw in
                    usd_webp_decode_first_frame(raw.bindMemory(to: UInt8.self).baseAddress, raw.count, out.baseAddress, count, nativeARGB ? 1 : 0, &stage)
                }
                initialized = count
            }
            guard ok != 0 else {
                let what = stage.map { String(cString: $0) } ?? "decoding"
                throw ImageError(.corrupt, "corrupt animated WebP: libwebpdemux: \(what) failed")
            }
            return RGBAImage(unchecked: width, height, pixels)
        }
        var status: Int32 = 0
        let pixels = [UInt8](unsafeUninitializedCapacity: count) { out, initialized in
            status = data.withUnsafeBytes { raw in
                usd_webp_decode_rgba(raw.bindMemory(to: UInt8.self).baseAddress, raw.count, out.baseAddress, count, Int32(width), nativeARGB ? 1 : 0)
            }
            initialized = count
        }
        try check(UInt32(bitPattern: status), byteCount: data.count)
        return RGBAImage(unchecked: width, height, pixels)
    }

    static func encode(_ image: RGBAImage, lossless: Bool, quality: Int) throws -> Data {
        guard image.width <= maxDimension, image.height <= maxDimension else {
            throw ImageError(
                .invalidDimensions,
                "cannot encode a \(image.width)x\(image.height) image as WebP: WebP allows at most \(maxDimension)x\(maxDimension) pixels; use PNG"
            )
        }
        var output: UnsafeMutablePointer<UInt8>?
        var outputSize = 0
        var errorCode: Int32 = 0
        let ok = image.pixels.withUnsafeBufferPointer { pixels in
            usd_webp_encode(
                pixels.baseAddress, Int32(image.width), Int32(image.height), lossless ? 1 : 0,
                Float(ImageFormat.clampedQuality(quality)), method, &output, &outputSize, &errorCode
            )
        }
        guard ok != 0, let output else {
            throw ImageError(.encodingFailed, "WebP encoding failed: libwebp: \(encodingErrorName(errorCode)) (\(errorCode))")
        }
        defer { WebPFree(output) }
        return Data(bytes: output, count: outputSize)
    }

    /// A looping animated WebP of equally sized frames (libwebpmux's WebPAnimEncoder), each
    /// shown for `frameDuration`, rounded to whole milliseconds (at least 1).
    static func encodeAnimation(_ frames: [RGBAImage], frameDuration: Duration, lossless: Bool, quality: Int) throws -> Data {
        guard let first = frames.first else {
            throw ImageError(.invalidArgument, "an animation needs at least 1 frame")
        }
        guard first.width <= maxDimension, first.height <= maxDimension else {
            throw ImageError(
                .invalidDimensions,
                "cannot encode a \(first.width)x\(first.height) animation as WebP: WebP allows at most \(maxDimension)x\(maxDimension) pixels"
            )
        }
        let milliseconds = Int32(clamping: max(1, frameDuration.milliseconds))
        let encoder = try AnimationEncoder(width: first.width, height: first.height)
        for (index, frame) in frames.enumerated() {
            try encoder.add(frame, at: Int32(clamping: index) &* milliseconds, lossless: lossless, quality: quality)
        }
        return try encoder.finish(at: Int32(clamping: frames.count) &* milliseconds)
    }

    /// libwebpmux's WebPAnimEncoder, freed with its owner.
    private final class AnimationEncoder {
        private let encoder: OpaquePointer

        init(width: Int, height: Int) throws {
            guard let encoder = usd_webp_anim_new(Int32(width), Int32(height)) else {
                throw ImageError(.encodingFailed, "animated WebP encoding failed: libwebpmux: WebPAnimEncoderNew failed")
            }
            self.encoder = encoder
        }

        deinit { usd_webp_anim_delete(encoder) }

        func add(_ frame: RGBAImage, at timestamp: Int32, lossless: Bool, quality: Int) throws {
            var stage: UnsafePointer<CChar>?
            let ok = frame.pixels.withUnsafeBufferPointer { pixels in
                usd_webp_anim_add(
                    encoder, pixels.baseAddress, Int32(frame.width), Int32(frame.height), timestamp,
                    lossless ? 1 : 0, Float(ImageFormat.clampedQuality(quality)), method, &stage
                )
            }
            try check(ok, stage)
        }

        func finish(at end: Int32) throws -> Data {
            var output: UnsafeMutablePointer<UInt8>?
            var outputSize = 0
            var stage: UnsafePointer<CChar>?
            try check(usd_webp_anim_finish(encoder, end, &output, &outputSize, &stage), stage)
            guard let output else { try check(0, stage); return Data() }
            defer { WebPFree(output) }
            return Data(bytes: output, count: outputSize)
        }

        private func check(_ ok: Int32, _ stage: UnsafePointer<CChar>?) throws {
            guard ok == 0 else { return }
            let what = stage.map { String(cString: $0) } ?? "encoding"
            throw ImageError(.encodingFailed, "animated WebP encoding failed: libwebpmux: \(what) failed")
        }
    }

    private static func check(_ status: UInt32, byteCount: Int) throws {
        switch status {
        case VP8_STATUS_OK.rawValue:
            return
        case VP8_STATUS_NOT_ENOUGH_DATA.rawValue:
            throw ImageError.truncated("WebP", byteCount: byteCount)
        case VP8_STATUS_UNSUPPORTED_FEATURE.rawValue:
            throw ImageError(.corrupt, "unsupported WebP: libwebp: VP8_STATUS_UNSUPPORTED_FEATURE (\(status))")
        default:
            throw ImageError(.corrupt, "corrupt WebP: libwebp: \(statusName(status)) (\(status))")
        }
    }

    private static func statusName(_ status: UInt32) -> String {
        switch status {
        case VP8_STATUS_OUT_OF_MEMORY.rawValue: "VP8_STATUS_OUT_OF_MEMORY"
        case VP8_STATUS_INVALID_PARAM.rawValue: "VP8_STATUS_INVALID_PARAM"
        case VP8_STATUS_BITSTREAM_ERROR.rawValue: "VP8_STATUS_BITSTREAM_ERROR"
        case VP8_STATUS_UNSUPPORTED_FEATURE.rawValue: "VP8_STATUS_UNSUPPORTED_FEATURE"
        case VP8_STATUS_SUSPENDED.rawValue: "VP8_STATUS_SUSPENDED"
        case VP8_STATUS_USER_ABORT.rawValue: "VP8_STATUS_USER_ABORT"
        case VP8_STATUS_NOT_ENOUGH_DATA.rawValue: "VP8_STATUS_NOT_ENOUGH_DATA"
        default: "VP8StatusCode"
        }
    }

    private static func encodingErrorName(_ code: Int32) -> String {
        switch UInt32(bitPattern: code) {
        case VP8_ENC_ERROR_OUT_OF_MEMORY.rawValue: "VP8_ENC_ERROR_OUT_OF_MEMORY"
        case VP8_ENC_ERROR_BITSTREAM_OUT_OF_MEMORY.rawValue: "VP8_ENC_ERROR_BITSTREAM_OUT_OF_MEMORY"
        case VP8_ENC_ERROR_NULL_PARAMETER.rawValue: "VP8_ENC_ERROR_NULL_PARAMETER"
        case VP8_ENC_ERROR_INVALID_CONFIGURATION.rawValue: "VP8_ENC_ERROR_INVALID_CONFIGURATION"
        case VP8_ENC_ERROR_BAD_DIMENSION.rawValue: "VP8_ENC_ERROR_BAD_DIMENSION"
        case VP8_ENC_ERROR_PARTITION0_OVERFLOW.rawValue: "VP8_ENC_ERROR_PARTITION0_OVERFLOW"
        case VP8_ENC_ERROR_PARTITION_OVERFLOW.rawValue: "VP8_ENC_ERROR_PARTITION_OVERFLOW"
        case VP8_ENC_ERROR_BAD_WRITE.rawValue: "VP8_ENC_ERROR_BAD_WRITE"
        case VP8_ENC_ERROR_FILE_TOO_BIG.rawValue: "VP8_ENC_ERROR_FILE_TOO_BIG"
        case VP8_ENC_ERROR_USER_ABORT.rawValue: "VP8_ENC_ERROR_USER_ABORT"
        default: "invalid configuration"
        }
    }
}

#endif
