import Foundation

/// Resizing in Swift, for the builds without libwebp's rescaler (Apple platforms, Linux without
/// the C codecs). It filters as libwebp does: the average of every source pixel a destination
/// pixel covers when shrinking, bilinear when enlarging, each axis apart, on alpha-premultiplied
/// values so that transparent pixels do not bleed their colour.
enum ImageResampler {
    /// `image`'s crop rectangle of `plan`, resampled to the plan's size.
    static func resize(_ image: RGBAImage, to plan: ImageResize.Plan) -> RGBAImage {
        let horizontal = weights(source: plan.cropWidth, destination: plan.width, offset: plan.cropX)
        let vertical = weights(source: plan.cropHeight, destination: plan.height, offset: plan.cropY)
        let sourceWidth = image.width

        // Premultiplied rows of the crop's vertical span, resampled across first.
        var across = [Float](repeating: 0, count: plan.width * image.height * 4)
        image.pixels.withUnsafeBufferPointer { source in
            let rows = (vertical.map(\.first).min() ?? 0)..<((vertical.map { $0.first + $0.weights.count }.max()) ?? 0)
            for y in rows {
                let row = y * sourceWidth * 4
                for (x, contribution) in horizontal.enumerated() {
                    var (r, g, b, a): (Float, Float, Float, Float) = (0, 0, 0, 0)
                    for (index, weight) in contribution.weights.enumerated() {
                        let pixel = row + (contribution.first + index) * 4
                        let alpha = Float(source[pixel + 3]) * weight
                        r += Float(source[pixel]) * alpha
                        g += Float(source[pixel + 1]) * alpha
                        b += Float(source[pixel + 2]) * alpha
                        a += alpha
                    }
                    let out = (y * plan.width + x) * 4
                    across[out] = r
                    across[out + 1] = g
                    across[out + 2] = b
                    across[out + 3] = a
                }
            }
        }

        var pixels = [UInt8](repeating: 0, count: plan.width * plan.height * 4)
        for (y, contribution) in vertical.enumerated() {
            for x in 0..<plan.width {
                var (r, g, b, a): (Float, Float, Float, Float) = (0, 0, 0, 0)
                for (index, weight) in contribution.weights.enumerated() {
                    let pixel = ((contribution.first + index) * plan.width + x) * 4
                    r += across[pixel] * weight
                    g += across[pixel + 1] * weight
                    b += across[pixel + 2] * weight
                    a += across[pixel + 3] * weight
                }
                let out = (y * plan.width + x) * 4
                if a > 0 {
                    pixels[out] = channel(r / a)
                    pixels[out + 1] = channel(g / a)
                    pixels[out + 2] = channel(b / a)
                }
                pixels[out + 3] = channel(a)
            }
        }
        return RGBAImage(unchecked: plan.width, plan.height, pixels)
    }

    /// For each destination pixel on one axis, the first source pixel it takes from and the
    /// weight of each one from there (summing to 1).
    static func weights(source: Int, destination: Int, offset: Int) -> [(first: Int, weights: [Float])] {
        let scale = Double(source) / Double(destination)
        return (0..<destination).map { index in
            if scale >= 1 {
                // Area average: the source span [start, end) this pixel covers, partial pixels weighed by how much of them it covers.
                let start = Double(index) * scale, end = min(Double(index + 1) * scale, Double(source))
                let first = Int(start), last = min(Int(end.rounded(.up)), source)
                let weights = (first..<max(last, first + 1)).map { pixel in
                    Float((min(end, Double(pixel + 1)) - max(start, Double(pixel))) / scale)
                }
                return (offset + first, weights)
            }
            // Bilinear, the first and last pixels of both rows aligned (as libwebp's rescaler
            // enlarges), between the two source pixels around this one's position.
            let centre = destination == 1 ? 0 : Double(index) * Double(source - 1) / Double(destination - 1)
            let first = min(Int(centre), max(source - 2, 0))
            let fraction = Float(centre - Double(first))
            return source == 1 ? (offset, [1]) : (offset + first, [1 - fraction, fraction])
        }
    }

    private static func channel(_ value: Float) -> UInt8 {
        UInt8(min(max(value.rounded(), 0), 255))
    }
}
