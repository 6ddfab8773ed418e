import Foundation

/// Draws images: the ``ImagePattern``s that stubs serve, and photo-like test images.
///
/// ```swift
/// let board = try ImageGenerator.generate(width: 256, height: 256, pattern: .checkerboard)
/// let png = try board.pngData()
/// ```
public enum ImageGenerator {
    /// Draws a pattern.
    /// - Parameters:
    ///   - width: Width in pixels, at least 1.
    ///   - height: Height in pixels, at least 1.
    ///   - pattern: What to draw.
    ///   - pixelLimit: The most pixels to allow, checked before anything is allocated.
    /// - Throws: ``ImageError``: `.invalidDimensions` below 1 pixel, `.tooLarge` over the limit.
    public static func generate(
        width: Int, height: Int, pattern: ImagePattern, pixelLimit: Int = RGBAImage.defaultPixelLimit
    ) throws -> RGBAImage {
        try RGBAImage.checkSize(width: width, height: height, pixelLimit: pixelLimit)
        let pixels: [UInt8]
        switch pattern {
        case .solid(let color):
            pixels = fill(width: width, height: height) { row, _ in
                paint(row, width: width) { _ in color }
            }
        case .checkerboard:
            let cell = max(1, min(width, height) / 8)
            pixels = fill(width: width, height: height) { row, y in
                paint(row, width: width) { x in (x / cell + y / cell) % 2 == 0 ? .white : .black }
            }
        case .gradient:
            pixels = fill(width: width, height: height) { row, y in
                let green = ramp(y, height)
                paint(row, width: width) { x in RGBAColor(red: ramp(x, width), green: green, blue: 128) }
            }
        case .photo:
            return try photoLike(width: width, height: height, seed: 1, pixelLimit: pixelLimit)
        }
        return RGBAImage(unchecked: width, height, pixels)
    }

    /// The frames of an animation: the pattern, with a band of inverted colour (`width / count`
    /// pixels wide, at least 1, full height, alpha kept) at `x = frame * width / count`, so each
    /// frame differs from the others and the band sweeps left to right once per loop.
    /// - Parameters:
    ///   - width: Width in pixels, at least 1.
    ///   - height: Height in pixels, at least 1.
    ///   - pattern: What each frame shows under the band.
    ///   - count: How many frames, at least 1.
    ///   - pixelLimit: The most pixels all frames together may have.
    /// - Throws: ``ImageError``: `.invalidDimensions`, `.invalidArgument` for a count below 1,
    ///   `.tooLarge` when `width * height * count` is over the limit.
    public static func frames(
        width: Int, height: Int, pattern: ImagePattern, count: Int, pixelLimit: Int = RGBAImage.defaultPixelLimit
    ) throws -> [RGBAImage] {
        guard count >= 1 else {
            throw ImageError(.invalidArgument, "an animation needs at least 1 frame, not \(count)")
        }
        try RGBAImage.checkSize(width: width, height: height, pixelLimit: pixelLimit)
        let (total, overflow) = (width * height).multipliedReportingOverflow(by: count)
        if overflow || total > pixelLimit {
            throw ImageError(
                .tooLarge,
                "an animation of \(count) frames of \(width)x\(height) is \(overflow ? "more than \(Int.max)" : "\(total)") pixels in all, over the limit of \(pixelLimit) pixels; use fewer or smaller frames"
            )
        }
        let base = try generate(width: width, height: height, pattern: pattern, pixelLimit: pixelLimit)
        return (0..<count).map { frame(base, index: $0, of: count) }
    }

    /// The first frame of ``frames(width:height:pattern:count:pixelLimit:)``, drawn alone.
    static func firstFrame(width: Int, height: Int, pattern: ImagePattern, count: Int, pixelLimit: Int) throws -> RGBAImage {
        frame(try generate(width: width, height: height, pattern: pattern, pixelLimit: pixelLimit), index: 0, of: max(count, 1))
    }

    /// `base` with the band of frame `index` of `count` inverted.
    private static func frame(_ base: RGBAImage, index: Int, of count: Int) -> RGBAImage {
        let width = base.width
        let bandWidth = max(1, width / count)
        let start = min(width - 1, index * width / count)
        let end = min(width, start + bandWidth)
        var pixels = base.pixels
        pixels.withUnsafeMutableBufferPointer { buffer in
            for y in 0..<base.height {
                let row = y * width * 4
                for offset in stride(from: row + start * 4, to: row + end * 4, by: 4) {
                    buffer[offset] = 255 - buffer[offset]
                    buffer[offset + 1] = 255 - buffer[offset + 1]
                    buffer[offset + 2] = 255 - buffer[offset + 2]
                }
            }
        }
        return RGBAImage(unchecked: width, base.height, pixels)
    }

    /// Draws a deterministic image with the statistics of a photograph: smooth colour gradients
    /// and soft shapes, plus fine grain. Lossy codecs treat it like a photo (unlike flat test
    /// patterns), which makes it the input for quality and speed measurements.
    /// - Parameters:
    ///   - width: Width in pixels, at least 1.
    ///   - height: Height in pixels, at least 1.
    ///   - seed: The same seed gives the same pixels.
    ///   - opaque: When `false`, alpha falls off smoothly towards the right edge.
    ///   - pixelLimit: The most pixels to allow.
    /// - Throws: ``ImageError``: `.invalidDimensions`, `.tooLarge`.
    public static func photoLike(
        width: Int, height: Int, seed: UInt64 = 1, opaque: Bool = true,
        pixelLimit: Int = RGBAImage.defaultPixelLimit
    ) throws -> RGBAImage {
        try RGBAImage.checkSize(width: width, height: height, pixelLimit: pixelLimit)
        var random = SplitMix64(seed: seed)
        let phase = Double(random.next() % 1000) / 100
        // Separable low-frequency terms, computed once per column and per row.
        let columns = (0..<width).map { x -> (Double, Double, Double) in
            let u = Double(x) / Double(max(width - 1, 1))
            return (90 * u + 30 * sin(u * 7 + phase), 40 * cos(u * 5 + phase), 60 * (1 - u))
        }
        let rows = (0..<height).map { y -> (Double, Double, Double) in
            let v = Double(y) / Double(max(height - 1, 1))
            return (40 * v, 70 + 60 * v + 25 * sin(v * 9 + phase), 50 + 40 * cos(v * 4 - phase))
        }
        let centerX = Double(width) * 0.6
        let centerY = Double(height) * 0.4
        let radius = Double(min(width, height)) * 0.3
        let pixels = fill(width: width, height: height) { row, y in
            let (rowR, rowG, rowB) = rows[y]
            let dy = Double(y) - centerY
            for x in 0..<width {
                let (colR, colG, colB) = columns[x]
                let dx = Double(x) - centerX
                // A soft bright disc, like a lit object.
                let disc = 70 * max(0, 1 - (dx * dx + dy * dy) / (radius * radius))
                let grain = Double(Int(random.next() % 17) - 8)
                let base = x * 4
                row[base] = clampByte(30 + colR + rowR + disc + grain)
                row[base + 1] = clampByte(colG + rowG + disc * 0.8 + grain)
                row[base + 2] = clampByte(colB + rowB + disc * 0.5 + grain)
                row[base + 3] = opaque ? 255 : clampByte(255 - 255 * Double(x) / Double(max(width - 1, 1)))
            }
        }
        return RGBAImage(unchecked: width, height, pixels)
    }

    /// Allocates `width * height * 4` bytes and lets `draw` fill each row.
    private static func fill(
        width: Int, height: Int, _ draw: (UnsafeMutableBufferPointer<UInt8>, Int) -> Void
    ) -> [UInt8] {
        let rowBytes = width * 4
        return [UInt8](unsafeUninitializedCapacity: rowBytes * height) { buffer, initialized in
            for y in 0..<height {
                draw(UnsafeMutableBufferPointer(rebasing: buffer[y * rowBytes..<(y + 1) * rowBytes]), y)
            }
            initialized = rowBytes * height
        }
    }

    private static func paint(_ row: UnsafeMutableBufferPointer<UInt8>, width: Int, _ color: (Int) -> RGBAColor) {
        for x in 0..<width {
            let c = color(x)
            row[x * 4] = c.red
            row[x * 4 + 1] = c.green
            row[x * 4 + 2] = c.blue
            row[x * 4 + 3] = c.alpha
        }
    }

    /// 0 at index 0, 255 at the last index, rounded.
    static func ramp(_ index: Int, _ count: Int) -> UInt8 {
        count <= 1 ? 0 : UInt8((index * 255 + (count - 1) / 2) / (count - 1))
    }

    private static func clampByte(_ value: Double) -> UInt8 {
        UInt8(min(max(value.rounded(), 0), 255))
    }
}
