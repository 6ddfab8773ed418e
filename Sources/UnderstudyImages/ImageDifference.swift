/// How far two RGBA images are apart: the mean and the largest difference of any channel,
/// alpha included, in levels (0...255). Images of different sizes are as far apart as can be.
///
/// ```swift
/// let difference = shown.difference(to: Hazard.orientation6.expected!)
/// if difference.maximum > 24 { print(difference) }
/// ```
public struct ImageDifference: Sendable, Equatable, CustomStringConvertible {
    /// The mean absolute difference over every channel of every pixel.
    public let mean: Double
    /// The largest absolute difference of any one channel.
    public let maximum: Int
    /// The two sizes, when they differ (`nil` when the images are the same size).
    public let sizes: (actual: (width: Int, height: Int), expected: (width: Int, height: Int))?

    /// Whether the images are the same size and no channel differs by more than `tolerance`.
    /// - Parameter tolerance: The largest channel difference allowed, in levels.
    public func isWithin(_ tolerance: Int) -> Bool {
        sizes == nil && maximum <= tolerance
    }

    /// "mean 1.25, maximum 7 levels", or the two sizes.
    public var description: String {
        if let sizes {
            return "sizes differ: \(sizes.actual.width)x\(sizes.actual.height), expected \(sizes.expected.width)x\(sizes.expected.height)"
        }
        return "mean \((mean * 100).rounded() / 100), maximum \(maximum) levels"
    }

    /// Two differences are equal when their numbers and sizes are.
    public static func == (lhs: ImageDifference, rhs: ImageDifference) -> Bool {
        guard lhs.mean == rhs.mean, lhs.maximum == rhs.maximum else { return false }
        switch (lhs.sizes, rhs.sizes) {
        case (nil, nil): return true
        case let (l?, r?): return l.actual == r.actual && l.expected == r.expected
        default: return false
        }
    }
}

extension RGBAImage {
    /// How far this image is from `expected`: the mean and maximum channel difference.
    /// - Parameter expected: The image a correct decoder gives, such as ``Hazard/expected``.
    public func difference(to expected: RGBAImage) -> ImageDifference {
        guard width == expected.width, height == expected.height else {
            return ImageDifference(mean: 255, maximum: 255, sizes: ((width, height), (expected.width, expected.height)))
        }
        var total = 0
        var maximum = 0
        for (a, b) in zip(pixels, expected.pixels) {
            let delta = abs(Int(a) - Int(b))
            total += delta
            maximum = max(maximum, delta)
        }
        return ImageDifference(mean: Double(total) / Double(max(pixels.count, 1)), maximum: maximum, sizes: nil)
    }
}
