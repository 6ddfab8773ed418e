#if !UNDERSTUDY_SYSTEM_CODECS
import Foundation

/// Builds without the C codecs (Apple platforms through ImageIO, Linux without the
/// `SystemCodecs` trait) do not write the hazards that need libjpeg-turbo's markers, libpng's
/// layouts, giflib or libwebp: each asks for SPEC 18's clear error rather than a wrong file.
enum HazardCodec {
    enum JPEGStore { case yCbCr, cmyk, ycck }

    /// SPEC 18's error where the build cannot encode `kind` at all; where it can (ImageIO
    /// writes JPEG and GIF), what it cannot write is the hazard's exact bytes, and the error
    /// says so rather than claiming the format is missing.
    private static func unavailable(_ kind: ImageKind) -> ImageError {
        guard CodecBackend.canEncode(kind) else { return ImageError.cannotEncode(kind) }
        return ImageError(
            .unsupportedFormat,
            "cannot write this hazard's \(kind.name) on \(CodecBackend.platform): its markers, colour spaces and frames are written with Linux's C codecs (the SystemCodecs trait); run `understudy hazards --write DIR` there and serve the files"
        )
    }

    static func jpeg(
        _ pixels: [UInt8], width: Int, height: Int, store: JPEGStore, quality: Int = 95, jfif: Bool,
        markers: [(code: UInt8, payload: [UInt8])] = []
    ) throws -> Data {
        throw unavailable(.jpeg)
    }

    static func png(_ rows: [UInt8], layout: PNGLayout) throws -> Data {
        throw ImageError(
            .unsupportedFormat,
            "cannot encode a \(layout.bitDepth)-bit PNG of colour type \(layout.colourType)\(layout.interlaced ? ", interlaced," : "") on \(CodecBackend.platform): its PNG encoder writes 8-bit RGB and RGBA only; run `understudy hazards --write DIR` on Linux with the SystemCodecs trait and serve the files"
        )
    }

    static func gif(_ frames: [RGBAImage], delays: [Int], looping: Bool) throws -> Data {
        throw unavailable(.gif)
    }

    static func gif(_ frames: [RGBAImage], delays: [Int], loopCount: Int?, comment: String? = nil) throws -> Data {
        throw unavailable(.gif)
    }

    static func gif(placed frames: [GIFFrame], width: Int, height: Int, loopCount: Int?) throws -> Data {
        throw unavailable(.gif)
    }

    static func webPLossless(_ image: RGBAImage) throws -> Data {
        throw unavailable(.webp)
    }

    static func webP(_ image: RGBAImage, lossless: Bool, quality: Int) throws -> Data {
        throw unavailable(.webp)
    }

    static func webP(_ layout: WebPLayout) throws -> Data {
        throw unavailable(.webp)
    }
}
#endif
