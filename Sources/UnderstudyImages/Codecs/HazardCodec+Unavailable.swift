#if !UNDERSTUDY_SYSTEM_CODECS
import Foundation

/// Builds without the C codecs (Apple platforms through ImageIO, Linux without the
/// `SystemCodecs` trait) do not write the hazards that need libjpeg-turbo's markers, libpng's
/// layouts, giflib or libwebp: each asks for SPEC 18's clear error rather than a wrong file.
enum HazardCodec {
    enum JPEGStore { case yCbCr, cmyk, ycck }

    static func jpeg(
        _ pixels: [UInt8], width: Int, height: Int, store: JPEGStore, quality: Int = 95, jfif: Bool,
        markers: [(code: UInt8, payload: [UInt8])] = []
    ) throws -> Data {
        throw ImageError.cannotEncode(.jpeg)
    }

    static func png(_ rows: [UInt8], layout: PNGLayout) throws -> Data {
        throw ImageError(
            .unsupportedFormat,
            "cannot encode a \(layout.bitDepth)-bit PNG of colour type \(layout.colourType)\(layout.interlaced ? ", interlaced," : "") on \(CodecBackend.platform): its PNG encoder writes 8-bit RGB and RGBA only; run `understudy hazards --write DIR` on Linux with the SystemCodecs trait and serve the files"
        )
    }

    static func gif(_ frames: [RGBAImage], delays: [Int], looping: Bool) throws -> Data {
        throw ImageError.cannotEncode(.gif)
    }

    static func gif(_ frames: [RGBAImage], delays: [Int], loopCount: Int?) throws -> Data {
        throw ImageError.cannotEncode(.gif)
    }

    static func gif(placed frames: [(image: RGBAImage, left: Int, top: Int, delay: Int)], width: Int, height: Int, looping: Bool) throws -> Data {
        throw ImageError.cannotEncode(.gif)
    }

    static func webPLossless(_ image: RGBAImage) throws -> Data {
        throw ImageError.cannotEncode(.webp)
    }
}
#endif
