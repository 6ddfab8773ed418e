#if UNDERSTUDY_SYSTEM_CODECS
internal import CUnderstudyPNG
import Foundation

/// libpng, through the setjmp-guarding shims of CUnderstudyPNG.
enum PNGCodec {
    /// zlib level 1 (deflate's fast path). A mock server re-encodes on the request path, where
    /// time matters more than bytes: level 1 with Sub is faster than libpng's defaults (level 6,
    /// adaptive filters, as `dwebp` writes PNG) for slightly larger files (Benchmarks/README.md).
    static let compressionLevel: Int32 = 1
    /// Only the Sub filter: one cheap subtraction per byte, which helps deflate on smooth
    /// images nearly as much as libpng's adaptive choice among all five filters, which tries
    /// each filter on every row.
    static let filters = Int32(PNG_FILTER_SUB)

    /// The size from the IHDR chunk, read directly so that the pixel limit is checked even when
    /// the rest of the file is missing (libpng reads on to the first IDAT before it reports).
    static func size(of data: Data) throws -> (width: Int, height: Int) {
        // Signature (8), chunk length (4), "IHDR" (4), width (4), height (4): IHDR comes first.
        let head = Array(data.prefix(24))
        guard head.count == 24 else { throw ImageError.truncated("PNG", byteCount: data.count) }
        guard head[12..<16].elementsEqual("IHDR".utf8) else {
            let found = String(decoding: head[12..<16].map { (32...126).contains($0) ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
            throw ImageError(.corrupt, "corrupt PNG: the first chunk is '\(found)', expected IHDR")
        }
        func bigEndian(_ offset: Int) -> Int {
            head[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
        }
        return (bigEndian(16), bigEndian(20))
    }

    /// With `nativeARGB` the pixels are ARGB words in the machine's byte order (see
    /// ``NativeARGBImage``), not RGBA.
    static func decode(_ data: Data, pixelLimit: Int, nativeARGB: Bool = false) throws -> RGBAImage {
        let (width, height) = try size(of: data)
        try RGBAImage.checkSize(width: width, height: height, pixelLimit: pixelLimit)
        var status = usd_png_status()
        var code: Int32 = 0
        let count = width * height * 4
        let pixels = [UInt8](unsafeUninitializedCapacity: count) { out, initialized in
            code = data.withUnsafeBytes { raw in
                usd_png_decode_rgba(raw.bindMemory(to: UInt8.self).baseAddress, raw.count, out.baseAddress, count, nativeARGB ? 1 : 0, &status)
            }
            // On failure the contents are partial; they are discarded below.
            initialized = count
        }
        try check(code, &status, byteCount: data.count)
        return RGBAImage(unchecked: width, height, pixels)
    }

    static func encode(_ image: RGBAImage) throws -> Data {
        var status = usd_png_status()
        var output: UnsafeMutablePointer<UInt8>?
        var outputSize = 0
        let dropAlpha: Int32 = image.isOpaque ? 1 : 0
        // A guess at the output size saves most reallocations of the growing buffer.
        let hint = image.pixels.count / 2 + 1024
        let code = image.pixels.withUnsafeBufferPointer { pixels in
            usd_png_encode_rgba(
                pixels.baseAddress, UInt32(image.width), UInt32(image.height), dropAlpha,
                compressionLevel, filters, hint, &output, &outputSize, &status
            )
        }
        guard code == USD_PNG_OK, let output else {
            throw ImageError(.encodingFailed, "PNG encoding failed: libpng: \(message(&status))")
        }
        defer { usd_png_free(output) }
        return Data(bytes: output, count: outputSize)
    }

    private static func check(_ code: Int32, _ status: inout usd_png_status, byteCount: Int) throws {
        try ShimStatus.check(
            format: "PNG", library: "libpng", ok: code == Int32(USD_PNG_OK), truncated: code == Int32(USD_PNG_TRUNCATED),
            message: message(&status), byteCount: byteCount
        )
    }

    private static func message(_ status: inout usd_png_status) -> String {
        ShimStatus.text(&status.message)
    }
}
#endif
