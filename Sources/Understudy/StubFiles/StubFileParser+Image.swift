import Foundation
import UnderstudyImages
internal import Yams

extension StubFileParser {
    /// The values of `image.as`, in the order messages list them.
    static let imageFormatNames = ["png", "webp", "webp-lossless", "original", "negotiate"]
    /// The values of `transcode`.
    static let transcodeNames = ["png", "webp", "webp-lossless", "negotiate"]
    /// The values of `image.generate.pattern`.
    static let patternNames = ["checkerboard", "gradient", "solid"]
    /// The WebP quality of `as: webp` and `transcode: webp` when none is given.
    static let defaultWebPQuality = 80

    /// `{file: path, as: format, quality: q}` or `{generate: {width, height, pattern, color}, as:, quality:}`.
    ///
    /// A file is read and decoded here, once, so a corrupt or truncated image is a load error
    /// naming the file rather than a 500 at request time. Generated sizes are checked against
    /// the pixel limit without drawing anything.
    mutating func parseImage(_ node: Node, path: String) -> StubResponse? {
        let expected = "{file: path, as: format} or {generate: {width, height, pattern}, as: format}"
        let issuesBefore = issues.count
        guard let fields = entries(node, path, allowed: ["file", "generate", "as", "quality"], expected: expected) else {
            return nil
        }
        var source: ImageSource?
        var sourceKey: String?
        var file: (url: URL, reference: String, node: Node, path: String)?
        var formatName = "original"
        var quality: (value: Int, node: Node, path: String)?

        for field in fields {
            let fieldPath = join(path, field.key)
            switch field.key {
            case "file", "generate":
                if let existing = sourceKey {
                    report(field.keyNode, fieldPath, "found both '\(existing)' and '\(field.key)'; expected exactly one of them")
                    continue
                }
                sourceKey = field.key
                if field.key == "generate" {
                    source = parseGenerate(field.value, path: fieldPath)
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
            case "quality":
                if let value = qualityValue(field.value, fieldPath) {
                    quality = (value, field.value, fieldPath)
                }
            default:
                preconditionFailure("key '\(field.key)' is allowed but not handled")
            }
        }

        if sourceKey == nil, issues.count == issuesBefore {
            report(node, path, "missing the image source; expected 'file' (a path) or 'generate' ({width, height, pattern})")
        }
        if let quality, formatName != "webp" {
            report(quality.node, quality.path, "quality applies only to as: webp; found as: \(formatName)")
        }
        if let file, issues.count == issuesBefore {
            // `original` serves any image's bytes as they are, so JPEG and GIF need only their signature.
            let servedAsIs = formatName == "original"
            if let problem = Self.imageProblem(in: file.url, decoding: !servedAsIs) {
                report(file.node, file.path, "cannot use image file '\(file.reference)': \(problem)")
            }
        }
        guard issues.count == issuesBefore, let source else { return nil }
        let format: ImageFormat
        switch formatName {
        case "png": format = .png
        case "webp": format = .webp(quality: quality?.value ?? Self.defaultWebPQuality)
        case "webp-lossless": format = .webpLossless
        case "negotiate": format = .negotiated
        default: format = .original
        }
        return .image(source, as: format)
    }

    /// `{width: 64, height: 64, pattern: checkerboard}`; `pattern` defaults to `solid` when a
    /// `color` is given, else to `checkerboard`.
    private mutating func parseGenerate(_ node: Node, path: String) -> ImageSource? {
        let issuesBefore = issues.count
        guard let fields = entries(node, path, allowed: ["width", "height", "pattern", "color"],
                                   expected: "{width, height, pattern, color}")
        else { return nil }
        var width: Int?
        var height: Int?
        var patternName: String?
        var color: (value: RGBAColor, node: Node, path: String)?
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
        guard issues.count == issuesBefore, let width, let height else { return nil }
        let limit = RGBAImage.defaultPixelLimit
        let pixels = width.multipliedReportingOverflow(by: height)
        if pixels.overflow || pixels.partialValue > limit {
            let count = pixels.overflow ? "more than \(Int.max)" : "\(pixels.partialValue)"
            report(node, path,
                   "a \(width)x\(height) image is \(count) pixels, over the limit of \(limit) (64 Mpx); expected a smaller width or height")
            return nil
        }
        switch pattern {
        case "gradient": return .generated(width: width, height: height, pattern: .gradient)
        case "solid": return color.map { .generated(width: width, height: height, pattern: .solid($0.value)) }
        default: return .generated(width: width, height: height, pattern: .checkerboard)
        }
    }

    /// `png | webp | webp-lossless | negotiate`.
    mutating func parseTranscode(_ node: Node, path: String) -> ImageFormat? {
        guard let name = string(node, path, expected: "an image format") else { return nil }
        switch name {
        case "png": return .png
        case "webp": return .webp(quality: Self.defaultWebPQuality)
        case "webp-lossless": return .webpLossless
        case "negotiate": return .negotiated
        default:
            report(node, path, "unknown transcode format '\(name)'; expected one of \(Self.transcodeNames.joined(separator: ", "))")
            return nil
        }
    }

    /// Checks that `transcode` has an image to work on: a `file` or `base64` body that decodes,
    /// or a forwarded one (checked when it arrives; a non-image passes through).
    mutating func checkTranscodable(
        bodyKey: String?, bodyNode: Node?, response: StubResponse?, transcodeNode: Node, path: String
    ) {
        switch bodyKey {
        case "forward":
            return
        case "image":
            report(transcodeNode, path, "transcode does not combine with 'image'; expected image.as to choose the format")
        case "file", "base64":
            let problem: String?
            let what: String
            switch response?.body {
            case .file(let url):
                what = "file '\(bodyNode?.scalar?.string ?? url.lastPathComponent)'"
                problem = Self.imageProblem(in: url, decoding: true)
            case .data(let data, _):
                what = "the base64 body"
                problem = Self.imageProblem(in: data, decoding: true)
            default:
                return  // the body itself was reported
            }
            if let problem {
                report(transcodeNode, path, "cannot transcode \(what): \(problem)")
            }
        case let key?:
            report(transcodeNode, path, "transcode needs an image body; found '\(key)', expected one of file, base64, forward")
        case nil:
            report(transcodeNode, path, "transcode needs an image body; expected one of file, base64, forward beside it")
        }
    }

    /// `quality: 0...100`.
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

    /// Why the bytes are not a usable image: with `decoding`, a PNG or WebP that decodes;
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
}
