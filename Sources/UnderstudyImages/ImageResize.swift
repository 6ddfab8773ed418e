/// How to resize an image, as image CDNs do from `?w=` and `?h=`.
///
/// With one side alone the other follows the aspect ratio, whatever the fit. With both:
/// `contain` scales to fit inside the box (aspect kept, so one side may come out shorter),
/// `cover` scales to cover the box and crops the overflow evenly from both ends, `fill`
/// stretches to the box exactly.
///
/// ```swift
/// ImageResize(width: 320).outputSize(width: 1600, height: 1200)                            // 320 x 240
/// ImageResize(width: 320, height: 320, fit: .cover).outputSize(width: 1600, height: 1200)  // 320 x 320
/// ```
public struct ImageResize: Sendable, Hashable, CustomStringConvertible {
    /// How the image meets a box of both width and height.
    public enum Fit: String, Sendable, Hashable, CaseIterable {
        /// Inside the box, aspect ratio kept.
        case contain
        /// Covers the box, aspect ratio kept, the overflow cropped from the centre.
        case cover
        /// Exactly the box, stretched.
        case fill
    }

    /// The width wanted, in pixels; `nil` to follow the height.
    public var width: Int?
    /// The height wanted, in pixels; `nil` to follow the width.
    public var height: Int?
    /// How to meet a box of both width and height.
    public var fit: Fit

    /// Creates a resize.
    /// - Parameters:
    ///   - width: the width wanted (at least 1), or `nil`.
    ///   - height: the height wanted (at least 1), or `nil`.
    ///   - fit: how to meet a box of both; `contain` by default.
    public init(width: Int? = nil, height: Int? = nil, fit: Fit = .contain) {
        self.width = width
        self.height = height
        self.fit = fit
    }

    /// `320x240 cover`, `320x? contain`.
    public var description: String {
        "\(width.map(String.init) ?? "?")x\(height.map(String.init) ?? "?") \(fit.rawValue)"
    }

    /// What a resize does to one source size: the region of the source kept, and the size it
    /// is scaled to.
    struct Plan: Equatable {
        var cropX = 0
        var cropY = 0
        var cropWidth: Int
        var cropHeight: Int
        var width: Int
        var height: Int
    }

    /// The size this resize gives a `width` x `height` image.
    public func outputSize(width sourceWidth: Int, height sourceHeight: Int) -> (width: Int, height: Int) {
        let plan = plan(width: sourceWidth, height: sourceHeight)
        return (plan.width, plan.height)
    }

    func plan(width sourceWidth: Int, height sourceHeight: Int) -> Plan {
        var plan = Plan(cropWidth: sourceWidth, cropHeight: sourceHeight, width: sourceWidth, height: sourceHeight)
        let sw = Double(sourceWidth)
        let sh = Double(sourceHeight)
        func scaled(_ value: Double) -> Int { max(1, Int(min(value.rounded(), Double(Int.max / 8)))) }
        switch (width, height) {
        case (nil, nil):
            break
        case (let w?, nil):
            plan.width = w
            plan.height = scaled(sh * Double(w) / sw)
        case (nil, let h?):
            plan.height = h
            plan.width = scaled(sw * Double(h) / sh)
        case (let w?, let h?):
            switch fit {
            case .fill:
                plan.width = w
                plan.height = h
            case .contain:
                let scale = min(Double(w) / sw, Double(h) / sh)
                plan.width = min(w, scaled(sw * scale))
                plan.height = min(h, scaled(sh * scale))
            case .cover:
                plan.width = w
                plan.height = h
                // The source region with the box's aspect ratio, as large as fits, centred.
                if sw * Double(h) > sh * Double(w) {
                    plan.cropWidth = min(sourceWidth, max(1, Int((sh * Double(w) / Double(h)).rounded())))
                    plan.cropX = (sourceWidth - plan.cropWidth) / 2
                } else {
                    plan.cropHeight = min(sourceHeight, max(1, Int((sw * Double(h) / Double(w)).rounded())))
                    plan.cropY = (sourceHeight - plan.cropHeight) / 2
                }
            }
        }
        return plan
    }
}
