#if !UNDERSTUDY_SYSTEM_CODECS && !canImport(ImageIO)
import Foundation

/// The codecs of Linux without the `SystemCodecs` trait: no C library at all, PNG in Swift
/// (``SwiftPNGCodec``), every other format refused with the error that says what to do. The
/// configuration nearest to Apple's that Linux compiles.
enum CodecBackend {
    /// The build, as errors name it.
    static let platform = "Linux without the SystemCodecs trait"

    static func canDecode(_ kind: ImageKind) -> Bool { kind == .png }

    static func canEncode(_ kind: ImageKind) -> Bool { kind == .png }

    static func decode(_ kind: ImageKind, _ data: Data, pixelLimit: Int) throws -> RGBAImage {
        guard kind == .png else { throw ImageError.cannotDecode(kind) }
        return try SwiftPNGCodec.decode(data, pixelLimit: pixelLimit)
    }

    static func decodeFrames(_ kind: ImageKind, _ data: Data, pixelLimit: Int) throws -> [RGBAImage] {
        [try decode(kind, data, pixelLimit: pixelLimit)]
    }

    static func decode(_ kind: ImageKind, _ data: Data, resizedTo resize: ImageResize, pixelLimit: Int) throws -> RGBAImage {
        try decode(kind, data, pixelLimit: pixelLimit).resized(resize, pixelLimit: pixelLimit)
    }

    static func resize(_ image: RGBAImage, to plan: ImageResize.Plan) throws -> RGBAImage {
        ImageResampler.resize(image, to: plan)
    }

    static func encode(_ image: RGBAImage, as target: ImageFormat) throws -> Data {
        guard target == .png else { throw ImageError.cannotEncode(target.kind) }
        return try SwiftPNGCodec.encode(image)
    }

    static func encodeAnimation(_ frames: [RGBAImage], frameDuration: Duration, as target: ImageFormat) throws -> Data {
        throw ImageError.cannotEncode(target.kind)
    }
}
#endif
