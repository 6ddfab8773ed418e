import Foundation
import UnderstudyImages
internal import Yams

extension StubFileParser {
    /// The hazards' building blocks as keys of `image:` (SPEC 20).
    static let imageVariantKeys = ["orientation", "colour", "depth", "palette", "interlaced", "declaredSize", "loop", "metadata"]

    /// Where each building-block key was written, for refusals that name it.
    typealias VariantNodes = [String: (node: Node, path: String)]

    /// Reads one building-block key into `variant`.
    mutating func parseVariantKey(_ key: String, _ node: Node, _ path: String, into variant: inout ImageVariant, nodes: inout VariantNodes) {
        nodes[key] = (node, path)
        switch key {
        case "orientation":
            guard let value = integer(node, path, expected: "an EXIF orientation from 1 to 8") else { return }
            guard (1...8).contains(value) else { return report(node, path, "orientation \(value) is out of range; expected an EXIF orientation from 1 to 8") }
            variant.orientation = value
        case "colour":
            let names = ImageVariant.Colour.allCases.map(\.rawValue)
            guard let name = string(node, path, expected: "one of \(names.joined(separator: ", "))") else { return }
            guard let colour = ImageVariant.Colour(rawValue: name) else {
                return report(node, path, "unknown colour '\(name)'; expected one of \(names.joined(separator: ", "))")
            }
            variant.colour = colour
        case "depth":
            guard let value = integer(node, path, expected: "8 or 16") else { return }
            guard value == 8 || value == 16 else { return report(node, path, "depth \(value) is not written; expected 8 or 16") }
            variant.depth = value
        case "palette":
            guard let fields = entries(node, path, allowed: ["colours", "transparent"], expected: "{colours: 2 to 256, transparent: true or false}") else { return }
            var palette = ImageVariant.Palette(colours: 256, transparent: false)
            for field in fields {
                let fieldPath = join(path, field.key)
                if field.key == "colours" {
                    guard let value = integer(field.value, fieldPath, expected: "an integer from 2 to 256") else { continue }
                    guard (2...256).contains(value) else { report(field.value, fieldPath, "colours \(value) is out of range; expected an integer from 2 to 256"); continue }
                    palette.colours = value
                } else if field.value.kind == .bool, let transparent = field.value.bool {
                    palette.transparent = transparent
                } else {
                    reportMismatch(field.value, fieldPath, expected: "true or false")
                }
            }
            variant.palette = palette
        case "interlaced":
            guard node.kind == .bool, let value = node.bool else { return reportMismatch(node, path, expected: "true or false") }
            variant.interlaced = value
        case "declaredSize":
            guard let fields = entries(node, path, allowed: ["width", "height"], expected: "{width, height}") else { return }
            var size = (width: 0, height: 0)
            for field in fields {
                guard let value = integer(field.value, join(path, field.key), expected: "a positive integer", minimum: 1) else { continue }
                if field.key == "width" { size.width = value } else { size.height = value }
            }
            guard size.width > 0, size.height > 0 else { return report(node, path, "expected both width and height, positive integers") }
            variant.declaredSize = size
        case "loop":
            if let text = node.string, text == "none" {
                variant.loop = .some(nil)
            } else if let count = integer(node, path, expected: "none, or a loop count from 0 (for ever) to 65535") {
                guard (0...65535).contains(count) else { return report(node, path, "loop \(count) is out of range; expected none, or 0 to 65535") }
                variant.loop = .some(count)
            }
        case "metadata":
            guard let text = string(node, path, expected: "a size such as 256KB") ?? nil else { return }
            guard let bytes = Self.byteSize(text), bytes > 0, bytes <= 16 * 1024 * 1024 else {
                return report(node, path, "'\(text)' is not a size from 1B to 16MB; expected a size such as 256KB")
            }
            variant.metadata = bytes
        default:
            preconditionFailure("building-block key '\(key)' is not handled")
        }
    }

    /// `256KB`, `1MB`, `300B` or a bare number of bytes.
    static func byteSize(_ text: String) -> Int? {
        let units = [("MB", 1024 * 1024), ("KB", 1024), ("B", 1)]
        for (suffix, scale) in units where text.uppercased().hasSuffix(suffix) {
            return Int(text.dropLast(suffix.count).trimmingCharacters(in: .whitespaces)).map { $0 * scale }
        }
        return Int(text)
    }

    /// The image with the building blocks applied, written now: a refusal or a codec's error
    /// is a load error naming the key, not a 500 at the first request.
    mutating func variantImage(
        _ variant: ImageVariant, nodes: VariantNodes, at image: (node: Node, path: String), source: ImageSource, formatName: String,
        quality: Int?, resize: StubResponse.Resize?, damage: ImageDamage?
    ) -> StubResponse? {
        let first = variant.keys.compactMap { nodes[$0] }.first ?? image
        let kinds = ["png": ImageKind.png, "jpeg": .jpeg, "gif": .gif, "webp": .webp, "webp-lossless": .webp]
        guard let kind = kinds[formatName] else {
            report(first.node, first.path, "building-block keys (\(variant.keys.joined(separator: ", "))) need as: png, jpeg, gif, webp or webp-lossless; found as: \(formatName)")
            return nil
        }
        var refused = false
        for refusal in variant.refusals(for: kind) {
            let place = nodes[refusal.key] ?? first
            report(place.node, place.path, refusal.message)
            refused = true
        }
        if resize != nil || damage != nil {
            report(first.node, first.path, "building-block keys and frameDuration 0ms cannot be combined with resize or damage; expected one or the other")
            refused = true
        }
        guard !refused else { return nil }
        do {
            var frames: [RGBAImage]
            var milliseconds = 100
            if case .animated(let width, let height, let pattern, let count, let duration) = source {
                frames = try ImageGenerator.frames(width: width, height: height, pattern: pattern, count: count)
                milliseconds = Int(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
            } else {
                frames = [try RGBAImage(decoding: source.originalData())]
            }
            if kind != .gif && kind != .webp { frames = [frames[0]] }
            let data = try variant.encode(
                frames, frameMilliseconds: milliseconds, as: kind, quality: quality ?? (kind == .webp ? Self.defaultWebPQuality : Self.defaultJPEGQuality),
                lossless: formatName == "webp-lossless"
            )
            return .data(data, contentType: kind.mimeType)
        } catch {
            let what = variant.keys.isEmpty ? "frameDuration 0ms" : variant.keys.joined(separator: ", ")
            report(first.node, first.path, "cannot write the image with \(what): \(error)")
            return nil
        }
    }
}
