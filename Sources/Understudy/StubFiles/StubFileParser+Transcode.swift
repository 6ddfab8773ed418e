import Foundation
import UnderstudyImages
internal import Yams

extension StubFileParser {
    /// `png | webp | webp-lossless | jpeg | jpeg-progressive | avif | heic | gif | negotiate`.
    mutating func parseTranscode(_ node: Node, path: String) -> ServedImageFormat? {
        guard let format = parseTranscodeName(node, path: path) else { return nil }
        if let problem = Self.encodingProblem(format) {
            report(node, path, problem)
            return nil
        }
        return format
    }

    private mutating func parseTranscodeName(_ node: Node, path: String) -> ServedImageFormat? {
        guard let name = string(node, path, expected: "an image format") else { return nil }
        switch name {
        case "png": return .png
        case "webp": return .webp
        case "webp-lossless": return .webpLossless
        case "jpeg": return .jpeg
        case "jpeg-progressive": return .jpegProgressive
        case "avif": return .avif
        case "heic": return .heic
        case "gif": return .gif
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
}
