import Foundation

/// The one face every decode and encode goes through, whatever the build's codecs.
///
/// It recognises the format, holds the pixel limit against every size the container declares
/// before a backend allocates anything, and turns a format this build cannot handle into an
/// error that says what to do instead. The work itself is ``CodecBackend``'s, one file per
/// build (chosen in Package.swift): the C libraries on Linux (the `SystemCodecs` trait), ImageIO
/// on Apple platforms, and on Linux without the C libraries a PNG codec written in Swift.
enum ImageCodecs {
    /// Decodes the first image of `data` (an animation's first frame).
    static func decode(_ data: Data, pixelLimit: Int) throws -> RGBAImage {
        let kind = try checkedKind(of: data, pixelLimit: pixelLimit)
        return try CodecBackend.decode(kind, data, pixelLimit: pixelLimit)
    }

    /// Decodes every frame of a GIF or an AVIF sequence; any other image as its one frame.
    static func decodeFrames(_ data: Data, pixelLimit: Int) throws -> [RGBAImage] {
        let kind = try checkedKind(of: data, pixelLimit: pixelLimit)
        return try CodecBackend.decodeFrames(kind, data, pixelLimit: pixelLimit)
    }

    /// Decodes `data` and resizes it, in the backend's cheapest way.
    static func decode(_ data: Data, resizedTo resize: ImageResize, pixelLimit: Int) throws -> RGBAImage {
        let kind = try checkedKind(of: data, pixelLimit: pixelLimit)
        return try CodecBackend.decode(kind, data, resizedTo: resize, pixelLimit: pixelLimit)
    }

    /// Encodes one image for `target`.
    static func encode(_ image: RGBAImage, as target: ImageFormat) throws -> Data {
        guard CodecBackend.canEncode(target.kind) else { throw ImageError.cannotEncode(target.kind) }
        return try CodecBackend.encode(image, as: target)
    }

    /// Encodes an animation for `target`: WebP, AVIF and GIF animate; any other target is
    /// given the first frame.
    static func encodeAnimation(_ frames: [RGBAImage], frameDuration: Duration, as target: ImageFormat) throws -> Data {
        guard CodecBackend.canEncode(target.kind) else { throw ImageError.cannotEncode(target.kind) }
        return target.animates
            ? try CodecBackend.encodeAnimation(frames, frameDuration: frameDuration, as: target)
            : try CodecBackend.encode(frames[0], as: target)
    }

    /// The format of `data`, checked: one this build decodes, declaring no image over
    /// `pixelLimit`.
    private static func checkedKind(of data: Data, pixelLimit: Int) throws -> ImageKind {
        guard let kind = ImageKind.detect(data) else {
            if let kind = ImageKind.truncatedSignature(data) {
                throw ImageError.truncated(kind.name, byteCount: data.count)
            }
            throw ImageError.notAnImage(data)
        }
        for declared in ImageHeader.declaredSizes(kind, data) {
            let (pixels, overflow) = declared.width.multipliedReportingOverflow(by: declared.height)
            guard overflow || pixels > pixelLimit else { continue }
            if let what = declared.what {
                throw ImageError(
                    .tooLarge,
                    "\(kind.name) \(what) declares \(declared.width)x\(declared.height) pixels, over the limit of \(pixelLimit) pixels; raise pixelLimit to allow it"
                )
            }
            throw ImageError.tooLarge(width: declared.width, height: declared.height, limit: pixelLimit)
        }
        guard CodecBackend.canDecode(kind) else { throw ImageError.cannotDecode(kind) }
        return kind
    }
}

extension ImageError {
    /// The format cannot be encoded by this build's codecs: what to do instead.
    package static func cannotEncode(_ kind: ImageKind) -> ImageError {
        let encodable = ImageKind.allCases.filter(CodecBackend.canEncode).map(\.name)
        let can = encodable.isEmpty ? "encode no format" : "encode \(list(encodable)) only"
        let article = kind == .avif ? "an" : "a"
        return ImageError(
            .unsupportedFormat,
            "cannot encode \(kind.name) on \(CodecBackend.platform): its codecs \(can); serve \(article) \(kind.name) file made with `understudy transcode` (format original), or run `understudy serve` on a host whose codecs encode \(kind.name)"
        )
    }

    /// The format cannot be decoded by this build's codecs: what to do instead.
    package static func cannotDecode(_ kind: ImageKind) -> ImageError {
        let decodable = ImageKind.allCases.filter(CodecBackend.canDecode).map(\.name)
        let can = decodable.isEmpty ? "decode no format" : "decode \(list(decodable)) only"
        return ImageError(
            .unsupportedFormat,
            "cannot decode \(kind.name) on \(CodecBackend.platform): its codecs \(can); serve the file as it is (format original), or convert it first with `understudy transcode` on a host that reads \(kind.name)"
        )
    }

    private static func list(_ names: [String]) -> String {
        names.count <= 1 ? names.joined() : names.dropLast().joined(separator: ", ") + " and " + names.last!
    }
}

extension ImageKind {
    /// Whether this build decodes the format: every format on Linux with the C codecs; on Apple
    /// platforms what ImageIO reads there (asked at run time); PNG alone on Linux without them.
    public var canDecode: Bool { CodecBackend.canDecode(self) }

    /// Whether this build encodes the format: every format on Linux with the C codecs; on Apple
    /// platforms what ImageIO writes there (asked at run time: PNG, JPEG, GIF, and HEIC where the
    /// device or simulator has an HEVC encoder), plus WebP and AVIF with the `HomebrewCodecs`
    /// trait on macOS; PNG alone on Linux without the C codecs.
    public var canEncode: Bool { CodecBackend.canEncode(self) }
}

extension ImageFormat {
    /// The formats this build decodes, in `ImageKind.allCases` order: all six with the C
    /// codecs, what ImageIO reads on Apple platforms, PNG alone on Linux without the C codecs.
    public static var decodableKinds: [ImageKind] { ImageKind.allCases.filter(\.canDecode) }

    /// The formats this build encodes, in `ImageKind.allCases` order (see
    /// ``ImageKind/canEncode``).
    ///
    /// ```swift
    /// ImageFormat.encodableKinds   // [.png, .jpeg, .gif, .heic] on an iPhone
    /// ```
    public static var encodableKinds: [ImageKind] { ImageKind.allCases.filter(\.canEncode) }

    /// Whether this build encodes this format (its ``kind``; see ``ImageKind/canEncode``).
    public var canEncode: Bool { kind.canEncode }
}
