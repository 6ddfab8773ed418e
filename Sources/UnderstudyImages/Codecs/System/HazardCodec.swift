#if UNDERSTUDY_SYSTEM_CODECS
internal import CUnderstudyJPEG
internal import CUnderstudyPNG
import Foundation

/// The encoders of the image hazards on Linux with the C codecs: JPEGs with chosen markers and
/// colour spaces through libjpeg-turbo, PNGs of any layout through libpng, and the GIF and WebP
/// pieces the memory hazards are made of.
enum HazardCodec {
    /// How a hazard JPEG stores its colour.
    enum JPEGStore {
        /// RGB input, YCbCr stored, as cameras write.
        case yCbCr
        /// CMYK input (inverted, Photoshop's way), stored as CMYK with Adobe transform 0.
        case cmyk
        /// CMYK input (inverted), stored as YCCK with Adobe transform 2.
        case ycck

        var code: Int32 {
            switch self {
            case .yCbCr: Int32(USD_JPEG_STORE_YCBCR)
            case .cmyk: Int32(USD_JPEG_STORE_CMYK)
            case .ycck: Int32(USD_JPEG_STORE_YCCK)
            }
        }
    }

    /// A baseline JPEG, 4:4:4, of `pixels` (4 bytes a pixel: RGBX or CMYK), with `markers`
    /// (code, payload) written after SOI through `jpeg_write_marker`.
    static func jpeg(
        _ pixels: [UInt8], width: Int, height: Int, store: JPEGStore, quality: Int = 95, jfif: Bool,
        markers: [(code: UInt8, payload: [UInt8])] = []
    ) throws -> Data {
        var list = [UInt8]()
        for marker in markers {
            list += [marker.code, UInt8(marker.payload.count >> 8), UInt8(marker.payload.count & 0xFF)] + marker.payload
        }
        var status = usd_jpeg_status()
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        let code = pixels.withUnsafeBufferPointer { pixels in
            list.withUnsafeBufferPointer { list in
                usd_jpeg_encode_hazard(
                    pixels.baseAddress, UInt32(width), UInt32(height), store.code, Int32(quality), jfif ? 1 : 0,
                    list.baseAddress, list.count, &output, &size, &status
                )
            }
        }
        guard code == USD_JPEG_OK, let output else {
            throw ImageError(.encodingFailed, "JPEG encoding failed: libjpeg: \(ShimStatus.text(&status.message))")
        }
        defer { usd_jpeg_free(output) }
        return Data(bytes: output, count: size)
    }

    /// A PNG of exactly this layout; `rows` are packed as PNG stores them.
    static func png(_ rows: [UInt8], layout: PNGLayout) throws -> Data {
        let palette = layout.palette.flatMap { $0 }
        var status = usd_png_status()
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        let code = rows.withUnsafeBufferPointer { rows in
            palette.withUnsafeBufferPointer { palette in
                layout.transparency.withUnsafeBufferPointer { trans in
                    layout.iccProfile.withUnsafeBufferPointer { icc in
                        layout.exif.withUnsafeBufferPointer { exif in
                            var cLayout = usd_png_layout(
                                width: UInt32(layout.width), height: UInt32(layout.height), bit_depth: Int32(layout.bitDepth),
                                color_type: Int32(layout.colourType), interlaced: layout.interlaced ? 1 : 0,
                                palette: palette.baseAddress, palette_count: Int32(layout.palette.count),
                                trans: trans.baseAddress, trans_count: Int32(layout.transparency.count),
                                icc: icc.baseAddress, icc_size: icc.count, exif: exif.baseAddress, exif_size: exif.count
                            )
                            return usd_png_encode_layout(rows.baseAddress, rows.count, &cLayout, &output, &size, &status)
                        }
                    }
                }
            }
        }
        guard code == USD_PNG_OK, let output else {
            throw ImageError(.encodingFailed, "PNG encoding failed: libpng: \(ShimStatus.text(&status.message))")
        }
        defer { usd_png_free(output) }
        return Data(bytes: output, count: size)
    }

    /// An animated GIF with a delay of its own per frame (hundredths of a second).
    static func gif(_ frames: [RGBAImage], delays: [Int], looping: Bool) throws -> Data {
        try GIFCodec.encode(frames, delays: delays, looping: looping)
    }

    /// An animated GIF with a delay per frame, a loop count of its own (`nil`: none) and a
    /// comment extension ahead of the first image when `comment` is given.
    static func gif(_ frames: [RGBAImage], delays: [Int], loopCount: Int?, comment: String? = nil) throws -> Data {
        try GIFCodec.encode(frames, delays: delays, loopCount: loopCount, comment: comment)
    }

    /// A GIF of frames placed on a `width` x `height` screen (giflib writes the sub-rectangles).
    static func gif(placed frames: [GIFFrame], width: Int, height: Int, loopCount: Int?) throws -> Data {
        try GIFCodec.encode(placed: frames, width: width, height: height, loopCount: loopCount)
    }

    /// A lossless WebP of `image`, for the frames the WebP hazards wrap.
    static func webPLossless(_ image: RGBAImage) throws -> Data {
        try WebPCodec.encode(image, lossless: true, quality: 75)
    }
}
#endif
