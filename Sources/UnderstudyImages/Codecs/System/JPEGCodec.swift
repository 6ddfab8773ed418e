#if UNDERSTUDY_SYSTEM_CODECS
internal import CUnderstudyJPEG
import Foundation

/// libjpeg-turbo, through the setjmp-guarding shims of CUnderstudyJPEG.
enum JPEGCodec {
    /// JPEG stores each dimension in 16 bits; libjpeg refuses more than 65500.
    static let maxDimension = 65500
    /// The quality of `as: jpeg` when none is given (cjpeg's default is 75; 85 is what image
    /// CDNs commonly serve photographs at).
    static let defaultQuality = 85
    /// JDCT_ISLOW, libjpeg's accurate integer DCT, both ways: with libjpeg-turbo's SIMD code it
    /// runs as fast as JDCT_IFAST, and IFAST is the less accurate of the two. It is
    /// also djpeg's and cjpeg's default, so our decode gives exactly djpeg's pixels.
    static let fastDCT: Int32 = 0

    /// The frame header's facts, read without decoding any pixels.
    struct Header {
        var width: Int
        var height: Int
        var components: Int
        var isProgressive: Bool
    }

    static func header(of data: Data) throws -> Header {
        var status = usd_jpeg_status()
        var header = usd_jpeg_header()
        let code = data.withUnsafeBytes { raw in
            usd_jpeg_read_header(raw.bindMemory(to: UInt8.self).baseAddress, raw.count, &header, &status)
        }
        try check(code, &status, byteCount: data.count)
        return Header(
            width: Int(header.width), height: Int(header.height),
            components: Int(header.components), isProgressive: header.progressive != 0
        )
    }

    /// With `nativeARGB` the pixels are ARGB words in the machine's byte order (see
    /// ``NativeARGBImage``), not RGBA.
    static func decode(_ data: Data, pixelLimit: Int, nativeARGB: Bool = false) throws -> RGBAImage {
        let header = try header(of: data)
        try RGBAImage.checkSize(width: header.width, height: header.height, pixelLimit: pixelLimit)
        var status = usd_jpeg_status()
        var code: Int32 = 0
        let count = header.width * header.height * 4
        let pixels = [UInt8](unsafeUninitializedCapacity: count) { out, initialized in
            code = data.withUnsafeBytes { raw in
                usd_jpeg_decode_rgba(raw.bindMemory(to: UInt8.self).baseAddress, raw.count, out.baseAddress, count, fastDCT, nativeARGB ? 1 : 0, &status)
            }
            // On failure the contents are partial; they are discarded below.
            initialized = count
        }
        try check(code, &status, byteCount: data.count)
        return RGBAImage(unchecked: header.width, header.height, pixels)
    }

    static func encode(_ image: RGBAImage, quality: Int, progressive: Bool) throws -> Data {
        guard image.width <= maxDimension, image.height <= maxDimension else {
            throw ImageError(
                .invalidDimensions,
                "cannot encode a \(image.width)x\(image.height) image as JPEG: JPEG allows at most \(maxDimension)x\(maxDimension) pixels; use PNG"
            )
        }
        var status = usd_jpeg_status()
        var output: UnsafeMutablePointer<UInt8>?
        var outputSize = 0
        // About 2 bits a pixel at quality 85 for a photograph; the buffer doubles when short.
        let hint = image.width * image.height / 4 + 4096
        let code = image.pixels.withUnsafeBufferPointer { pixels in
            usd_jpeg_encode_rgba(
                pixels.baseAddress, UInt32(image.width), UInt32(image.height),
                Int32(min(max(quality, 1), 100)), progressive ? 1 : 0, fastDCT, hint, &output, &outputSize, &status
            )
        }
        guard code == USD_JPEG_OK, let output else {
            throw ImageError(.encodingFailed, "JPEG encoding failed: libjpeg: \(message(&status))")
        }
        defer { usd_jpeg_free(output) }
        return Data(bytes: output, count: outputSize)
    }

    private static func check(_ code: Int32, _ status: inout usd_jpeg_status, byteCount: Int) throws {
        try ShimStatus.check(
            format: "JPEG", library: "libjpeg", ok: code == Int32(USD_JPEG_OK), truncated: code == Int32(USD_JPEG_TRUNCATED),
            unsupported: code == Int32(USD_JPEG_UNSUPPORTED), message: message(&status), byteCount: byteCount
        )
    }

    private static func message(_ status: inout usd_jpeg_status) -> String {
        ShimStatus.text(&status.message)
    }
}
#endif
