import Foundation
import UnderstudyImages
internal import Yams

extension StubFileParser {
    /// The values of `image.as`, in the order messages list them.
    static let imageFormatNames = ["png", "webp", "webp-lossless", "jpeg", "jpeg-progressive", "avif", "heic", "gif", "original", "negotiate"]
    /// The values of `transcode`.
    static let transcodeNames = ["png", "webp", "webp-lossless", "jpeg", "jpeg-progressive", "avif", "heic", "gif", "negotiate"]
    /// The values of `image.formats`.
    static let negotiableNames = ["webp", "png", "jpeg", "avif", "heic", "gif"]
    /// The values of `image.as` that take `quality`.
    static let qualityFormatNames = ["webp", "jpeg", "jpeg-progressive", "avif", "heic"]
    /// The values of `image.generate.pattern`.
    static let patternNames = ["checkerboard", "gradient", "solid", "photo"]
    /// The values of `image.resize.fit`.
    static let fitNames = ImageResize.Fit.allCases.map(\.rawValue)
    /// The values of `image.damage`.
    static let damageNames = ImageDamage.allCases.map(\.rawValue)
    /// The WebP quality of `as: webp` and `transcode: webp` when none is given (Swift's `.webp`).
    static let defaultWebPQuality = ImageFormat.defaultWebPQuality
    /// The JPEG quality of `as: jpeg` and `transcode: jpeg` when none is given.
    static let defaultJPEGQuality = ImageFormat.defaultJPEGQuality
    /// The AVIF and HEIC quality of `as: avif`/`heic` and `transcode: avif`/`heic` when none is given.
    static let defaultAVIFQuality = ImageFormat.defaultAVIFQuality
    /// The AVIF encoder speed (0 slowest .. 10 fastest) when `speed` is not given.
    static let defaultAVIFSpeed = ImageFormat.defaultAVIFSpeed
    /// The most frames `generate.frames` may ask for.
    static let maxFrames = 1000
    /// The frame duration of an animation when `frameDuration` is not given.
    static let defaultFrameDuration = Duration.milliseconds(100)

    /// `{file: path, as: format, quality: q, speed: s, formats: [...], resize: {...}, damage: kind}` or
    /// `{generate: {width, height, pattern, color, frames, frameDuration}, as:, ...}`.
    ///
    /// A file is read and decoded here, once, so a corrupt or truncated image is a load error
    /// naming the file rather than a 500 at request time. Generated sizes are checked against
    /// the pixel limit without drawing anything.
    mutating func parseImage(_ node: Node, path: String) -> StubResponse? {
        let expected = "{file: path, as: format}, {base64: bytes, as: format} or {generate: {width, height, pattern}, as: format}"
        let issuesBefore = issues.count
        guard let fields = entries(
            node, path, allowed: ["file", "base64", "generate", "as", "quality", "speed", "formats", "resize", "damage"] + Self.imageVariantKeys,
            expected: expected
        ) else {
            return nil
        }
        var source: ImageSource?
        var sourceKey: String?
        var file: (url: URL, reference: String, node: Node, path: String)?
        var inline: (data: Data, node: Node, path: String)?
        var asNode: (node: Node, path: String)?
        var formatName = "original"
        var quality: (value: Int, node: Node, path: String)?
        var speed: (value: Int, node: Node, path: String)?
        var formats: (kinds: [ImageKind], node: Node, path: String)?
        var resize: StubResponse.Resize?
        var damage: ImageDamage?
        var variant = ImageVariant()
        var variantNodes: VariantNodes = [:]

        for field in fields {
            let fieldPath = join(path, field.key)
            switch field.key {
            case "file", "base64", "generate":
                if let existing = sourceKey {
                    report(field.keyNode, fieldPath, "found both '\(existing)' and '\(field.key)'; expected exactly one of them")
                    continue
                }
                sourceKey = field.key
                if field.key == "generate" {
                    source = parseGenerate(field.value, path: fieldPath)
                } else if field.key == "base64" {
                    if let data = base64(field.value, fieldPath) {
                        inline = (data, field.value, fieldPath)
                        source = .data(data)
                    }
                } else if let reference = string(field.value, fieldPath, expected: "a path relative to the stub file"),
                          let url = resolveFile(reference, field.value, fieldPath) {
                    file = (url, reference, field.value, fieldPath)
                    source = .file(url)
                }
            case "as":
                guard let name = string(field.value, fieldPath, expected: "an image format") else { continue }
                guard Self.imageFormatNames.contains(name) else {
                    report(field.value, fieldPath,
                           "unknown image format '\(name)'; expected one of \(Self.imageFormatNames.joined(separator: ", "))")
                    continue
                }
                formatName = name
                asNode = (field.value, fieldPath)
            case "quality":
                if let value = qualityValue(field.value, fieldPath) {
                    quality = (value, field.value, fieldPath)
                }
            case "speed":
                guard let value = integer(field.value, fieldPath, expected: "an integer from 0 (slowest) to 10 (fastest)") else { continue }
                guard (0...10).contains(value) else {
                    report(field.value, fieldPath, "speed \(value) is out of range; expected an integer from 0 (slowest) to 10 (fastest)")
                    continue
                }
                speed = (value, field.value, fieldPath)
            case "formats":
                if let kinds = parseFormats(field.value, path: fieldPath) {
                    formats = (kinds, field.value, fieldPath)
                }
            case "resize":
                resize = parseResize(field.value, path: fieldPath)
            case "damage":
                guard let name = string(field.value, fieldPath, expected: "a kind of damage") else { continue }
                guard let kind = ImageDamage(rawValue: name) else {
                    report(field.value, fieldPath, "unknown damage '\(name)'; expected one of \(Self.damageNames.joined(separator: ", "))")
                    continue
                }
                damage = kind
            case _ where Self.imageVariantKeys.contains(field.key):
                parseVariantKey(field.key, field.value, fieldPath, into: &variant, nodes: &variantNodes)
            default:
                preconditionFailure("key '\(field.key)' is allowed but not handled")
            }
        }

        if sourceKey == nil, issues.count == issuesBefore {
            report(node, path, "missing the image source; expected 'file' (a path), 'base64' (the bytes) or 'generate' ({width, height, pattern})")
        }
        if let quality {
            if !Self.qualityFormatNames.contains(formatName) {
                report(quality.node, quality.path, "quality applies only to as: webp, jpeg, jpeg-progressive, avif or heic; found as: \(formatName)")
            } else if formatName.hasPrefix("jpeg"), quality.value < 1 {
                report(quality.node, quality.path, "quality 0 is out of range for JPEG; expected an integer from 1 to 100")
            }
        }
        if let speed, formatName != "avif" {
            report(speed.node, speed.path, "speed applies only to as: avif; found as: \(formatName)")
        }
        if let formats, formatName != "negotiate" {
            report(formats.node, formats.path, "formats applies only to as: negotiate; found as: \(formatName)")
        }
        if let file, issues.count == issuesBefore {
            // `original` serves any image's bytes as they are, so they need only a signature;
            // resizing needs pixels.
            let servedAsIs = formatName == "original" && resize == nil
            if let problem = Self.imageProblem(in: file.url, decoding: !servedAsIs) {
                report(file.node, file.path, "cannot use image file '\(file.reference)': \(problem)")
            }
        }
        if let inline, issues.count == issuesBefore {
            let servedAsIs = formatName == "original" && resize == nil
            if let problem = Self.imageProblem(in: inline.data, decoding: !servedAsIs) {
                report(inline.node, inline.path, "cannot use the image's bytes: \(problem)")
            }
        }
        guard issues.count == issuesBefore, let source else { return nil }
        let format: ServedImageFormat
        switch formatName {
        case "png": format = .png
        case "webp": format = .webp(quality: quality?.value ?? Self.defaultWebPQuality)
        case "webp-lossless": format = .webpLossless
        case "jpeg": format = .jpeg(quality: quality?.value ?? Self.defaultJPEGQuality)
        case "jpeg-progressive": format = .jpegProgressive(quality: quality?.value ?? Self.defaultJPEGQuality)
        case "avif": format = .avif(quality: quality?.value ?? Self.defaultAVIFQuality, speed: speed?.value ?? Self.defaultAVIFSpeed)
        case "heic": format = .heic(quality: quality?.value ?? Self.defaultAVIFQuality)
        case "gif": format = .gif
        case "negotiate": format = .negotiated(among: formats?.kinds ?? ServedImageFormat.defaultNegotiatedKinds)
        default: format = .original
        }
        if let asNode, let problem = Self.encodingProblem(format) {
            report(asNode.node, asNode.path, problem)
            return nil
        }
        if case .animated(_, _, _, _, let duration) = source, duration == .zero {
            // Only GIF stores a delay of 0 as given; the other encoders need at least 1ms.
            guard formatName == "gif" else {
                report(asNode?.node ?? node, asNode?.path ?? path, "frameDuration 0ms is written for as: gif only; found as: \(formatName)")
                return nil
            }
            return variantImage(variant, nodes: variantNodes, at: (node, path), source: source, formatName: formatName, quality: nil, resize: resize, damage: damage)
        }
        if !variant.isEmpty {
            return variantImage(variant, nodes: variantNodes, at: (node, path), source: source, formatName: formatName, quality: quality?.value, resize: resize, damage: damage)
        }
        return .image(source, as: format, resize: resize, damage: damage)
    }

    /// `[webp, jpeg]`: the formats `as: negotiate` chooses among, most preferred first.
    private mutating func parseFormats(_ node: Node, path: String) -> [ImageKind]? {
        let expected = "a list of \(Self.negotiableNames.joined(separator: ", "))"
        guard case .sequence(let items) = node else {
            reportMismatch(node, path, expected: expected)
            return nil
        }
        guard !items.isEmpty else {
            report(node, path, "the list is empty; expected \(expected)")
            return nil
        }
        var kinds: [ImageKind] = []
        var ok = true
        for (index, item) in items.enumerated() {
            let itemPath = "\(path)[\(index)]"
            guard let name = string(item, itemPath, expected: "an image format") else {
                ok = false
                continue
            }
            guard Self.negotiableNames.contains(name), let kind = ImageKind(rawValue: name) else {
                report(item, itemPath, "unknown format '\(name)'; expected one of \(Self.negotiableNames.joined(separator: ", "))")
                ok = false
                continue
            }
            if kinds.contains(kind) {
                report(item, itemPath, "format '\(name)' is listed twice; expected each format once")
                ok = false
                continue
            }
            kinds.append(kind)
        }
        return ok ? kinds : nil
    }

    /// `{width: 64, height: 64, pattern: checkerboard}`; `pattern` defaults to `solid` when a
    /// `color` is given, else to `checkerboard`. `frames` (and `frameDuration`) make it an
    /// animation.
    private mutating func parseGenerate(_ node: Node, path: String) -> ImageSource? {
        let issuesBefore = issues.count
        guard let fields = entries(node, path, allowed: ["width", "height", "pattern", "color", "frames", "frameDuration"],
                                   expected: "{width, height, pattern, color, frames, frameDuration}")
        else { return nil }
        var width: Int?
        var height: Int?
        var patternName: String?
        var color: (value: RGBAColor, node: Node, path: String)?
        var frames: Int?
        var frameDuration: (value: Duration, node: Node, path: String)?
        for field in fields {
            let fieldPath = join(path, field.key)
            switch field.key {
            case "width":
                width = integer(field.value, fieldPath, expected: "a positive integer", minimum: 1)
            case "height":
                height = integer(field.value, fieldPath, expected: "a positive integer", minimum: 1)
            case "pattern":
                guard let name = string(field.value, fieldPath, expected: "a pattern name") else { continue }
                guard Self.patternNames.contains(name) else {
                    report(field.value, fieldPath, "unknown pattern '\(name)'; expected one of \(Self.patternNames.joined(separator: ", "))")
                    continue
                }
                patternName = name
            case "color":
                guard let text = string(field.value, fieldPath, expected: "a colour") else { continue }
                do {
                    color = (try RGBAColor(parsing: text), field.value, fieldPath)
                } catch {
                    report(field.value, fieldPath, "\(error)")
                }
            case "frames":
                guard let value = integer(field.value, fieldPath, expected: "an integer from 1 to \(Self.maxFrames)", minimum: 1) else { continue }
                guard value <= Self.maxFrames else {
                    report(field.value, fieldPath, "\(value) frames is too many; expected an integer from 1 to \(Self.maxFrames)")
                    continue
                }
                frames = value
            case "frameDuration":
                guard let text = string(field.value, fieldPath, expected: "a duration like 100ms") else { continue }
                // 0ms is allowed: browsers clamp it, and the zero-delay hazard is about that.
                guard let value = Delay.parseDuration(text), value >= .zero else {
                    report(field.value, fieldPath, "invalid frame duration '\(text)'; expected 0ms or more, like 100ms or 0.5s")
                    continue
                }
                frameDuration = (value, field.value, fieldPath)
            default:
                preconditionFailure("key '\(field.key)' is allowed but not handled")
            }
        }
        let fieldNames = Set(fields.map(\.key))
        for key in ["width", "height"] where !fieldNames.contains(key) {
            report(node, path, "missing key '\(key)'; expected a positive integer")
        }
        let pattern = patternName ?? (fieldNames.contains("color") ? "solid" : "checkerboard")
        if pattern == "solid", !fieldNames.contains("color") {
            report(node, path, "pattern solid needs a 'color'; expected #rrggbb, #rrggbbaa or a colour name")
        }
        if pattern != "solid", let color {
            report(color.node, color.path, "'color' applies only to pattern solid; found pattern \(pattern)")
        }
        if let frameDuration, frames == nil, !fieldNames.contains("frames") {
            report(frameDuration.node, frameDuration.path, "frameDuration applies only to an animation; expected 'frames' beside it")
        }
        guard issues.count == issuesBefore, let width, let height else { return nil }
        let limit = RGBAImage.defaultPixelLimit
        let pixels = width.multipliedReportingOverflow(by: height)
        if pixels.overflow || pixels.partialValue > limit {
            let count = pixels.overflow ? "more than \(Int.max)" : "\(pixels.partialValue)"
            report(node, path,
                   "a \(width)x\(height) image is \(count) pixels, over the limit of \(limit) (64 Mpx); expected a smaller width or height")
            return nil
        }
        if let frames {
            let total = pixels.partialValue.multipliedReportingOverflow(by: frames)
            if total.overflow || total.partialValue > limit {
                report(node, path,
                       "\(frames) frames of \(width)x\(height) are \(total.overflow ? "more than \(Int.max)" : "\(total.partialValue)") pixels in all, over the limit of \(limit) (64 Mpx); expected fewer or smaller frames")
                return nil
            }
        }
        let drawn: ImagePattern
        switch pattern {
        case "gradient": drawn = .gradient
        case "photo": drawn = .photo
        case "solid":
            guard let color else { return nil }
            drawn = .solid(color.value)
        default: drawn = .checkerboard
        }
        if let frames {
            return .animated(width: width, height: height, pattern: drawn, frames: frames,
                             frameDuration: frameDuration?.value ?? Self.defaultFrameDuration)
        }
        return .generated(width: width, height: height, pattern: drawn)
    }

    private mutating func qualityValue(_ node: Node, _ path: String) -> Int? {
        guard let value = integer(node, path, expected: "an integer from 0 to 100") else { return nil }
        guard (0...100).contains(value) else {
            report(node, path, "quality \(value) is out of range; expected an integer from 0 to 100")
            return nil
        }
        return value
    }

    /// Why the file cannot be served as an image, or `nil` when it can.
    static func imageProblem(in url: URL, decoding: Bool) -> String? {
        do {
            return imageProblem(in: try Data(contentsOf: url), decoding: decoding)
        } catch {
            return "cannot read it: \((error as NSError).localizedFailureReason ?? error.localizedDescription)"
        }
    }

    /// Why the bytes are not a usable image: with `decoding`, an image (PNG, WebP, JPEG, GIF, AVIF, HEIC) that decodes;
    /// without, any recognised image signature. `nil` when they are.
    static func imageProblem(in data: Data, decoding: Bool) -> String? {
        if !decoding, ImageKind.detect(data) != nil { return nil }
        do {
            _ = try RGBAImage(decoding: data)
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// Why this build cannot serve `format` (``ServedImageFormat/canServe``): the format, the
    /// platform and what to do instead. `nil` when it can.
    static func encodingProblem(_ format: ServedImageFormat) -> String? {
        guard !format.canServe else { return nil }
        let kind: ImageKind? = switch format {
        case .encoded(let encoding): encoding.kind
        case .negotiated(let kinds): kinds.first
        case .original: nil
        }
        return kind.map { "\(ImageError.cannotEncode($0))" }
    }
}
