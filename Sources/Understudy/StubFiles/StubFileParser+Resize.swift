import Foundation
import UnderstudyImages
internal import Yams

extension StubFileParser {
    /// `{width: 320 | '{query.w}', height: ..., fit: contain | cover | fill}`.
    mutating func parseResize(_ node: Node, path: String) -> StubResponse.Resize? {
        let issuesBefore = issues.count
        guard let fields = entries(node, path, allowed: ["width", "height", "fit"], expected: "{width, height, fit}") else {
            return nil
        }
        var resize = StubResponse.Resize()
        for field in fields {
            let fieldPath = join(path, field.key)
            switch field.key {
            case "width", "height":
                let dimension = parseDimension(field.value, path: fieldPath)
                if field.key == "width" { resize.width = dimension } else { resize.height = dimension }
            case "fit":
                guard let name = string(field.value, fieldPath, expected: "a fit") else { continue }
                guard let fit = ImageResize.Fit(rawValue: name) else {
                    report(field.value, fieldPath, "unknown fit '\(name)'; expected one of \(Self.fitNames.joined(separator: ", "))")
                    continue
                }
                resize.fit = fit
            default:
                preconditionFailure("key '\(field.key)' is allowed but not handled")
            }
        }
        if issues.count == issuesBefore, resize.width == nil, resize.height == nil {
            report(node, path, "missing 'width' and 'height'; expected at least one of them")
        }
        if case .pixels(let width)? = resize.width, case .pixels(let height)? = resize.height, issues.count == issuesBefore {
            let limit = RGBAImage.defaultPixelLimit
            let pixels = width.multipliedReportingOverflow(by: height)
            if pixels.overflow || pixels.partialValue > limit {
                report(node, path, "a resize to \(width)x\(height) is over the limit of \(limit) pixels (64 Mpx); expected a smaller width or height")
            }
        }
        return issues.count == issuesBefore ? resize : nil
    }

    /// `320` or `'{query.w}'`.
    mutating func parseDimension(_ node: Node, path: String) -> StubResponse.Resize.Dimension? {
        let expected = "a positive integer or '{query.NAME}'"
        if node.kind == .int {
            guard let value = integer(node, path, expected: expected, minimum: 1) else { return nil }
            guard value <= RGBAImage.defaultPixelLimit else {
                report(node, path, "\(value) pixels is over the limit of \(RGBAImage.defaultPixelLimit); expected a smaller size")
                return nil
            }
            return .pixels(value)
        }
        guard let text = string(node, path, expected: expected) else { return nil }
        let prefix = "{query."
        if text.hasPrefix(prefix), text.hasSuffix("}"), text.count > prefix.count + 1 {
            return .query(String(text.dropFirst(prefix.count).dropLast()))
        }
        report(node, path, "found '\(text)'; expected \(expected), like '{query.w}'")
        return nil
    }
}
