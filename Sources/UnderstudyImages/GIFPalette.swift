/// A palette of at most 256 colours chosen from an image, and the image as indices into it:
/// what a GIF frame stores.
///
/// The image's own colours when there are few enough; otherwise median cut (Heckbert 1982) on a
/// histogram of 5 bits a channel: the box of colours with the most pixels times the longest
/// side is split at the median of that side until there are as many boxes as palette entries,
/// and each box's colour is the mean of its pixels. Each pixel takes its box's index, so mapping
/// is one table look-up a pixel, with no search and no dithering.
struct GIFPalette {
    /// RGB triples.
    var palette: [UInt8]
    /// One index a pixel.
    var indices: [UInt8]
    /// The index pixels with alpha 0 take (the last entry), when there are any.
    var transparentIndex: Int?

    static func quantize(_ image: RGBAImage) -> GIFPalette {
        let hasTransparency = !image.isOpaque && image.pixels.withUnsafeBufferPointer { pixels in
            stride(from: 3, to: pixels.count, by: 4).contains { pixels[$0] == 0 }
        }
        let colorLimit = hasTransparency ? 255 : 256
        var result = exact(image, limit: colorLimit) ?? medianCut(image, limit: colorLimit)
        if hasTransparency {
            let index = result.palette.count / 3
            result.palette += [0, 0, 0]
            result.transparentIndex = index
            image.pixels.withUnsafeBufferPointer { pixels in
                for pixel in 0..<(image.width * image.height) where pixels[pixel * 4 + 3] == 0 {
                    result.indices[pixel] = UInt8(index)
                }
            }
        }
        return result
    }

    /// The image's own colours (of pixels not fully transparent), or nil when there are more
    /// than `limit`.
    private static func exact(_ image: RGBAImage, limit: Int) -> GIFPalette? {
        var table: [UInt32: UInt8] = [:]
        var palette: [UInt8] = []
        let count = image.width * image.height
        var indices = [UInt8](repeating: 0, count: count)
        var lastColor: UInt32 = .max
        var lastIndex: UInt8 = 0
        let fits = image.pixels.withUnsafeBufferPointer { pixels in
            for pixel in 0..<count {
                let base = pixel * 4
                if pixels[base + 3] == 0 { continue }
                let color = UInt32(pixels[base]) << 16 | UInt32(pixels[base + 1]) << 8 | UInt32(pixels[base + 2])
                if color != lastColor {
                    if let index = table[color] {
                        lastIndex = index
                    } else {
                        guard table.count < limit else { return false }
                        lastIndex = UInt8(table.count)
                        table[color] = lastIndex
                        palette += [pixels[base], pixels[base + 1], pixels[base + 2]]
                    }
                    lastColor = color
                }
                indices[pixel] = lastIndex
            }
            return true
        }
        guard fits else { return nil }
        if palette.isEmpty { palette = [0, 0, 0] }
        return GIFPalette(palette: palette, indices: indices, transparentIndex: nil)
    }

    private struct Box {
        var bins: [Int]  // histogram bins (r << 10 | g << 5 | b) in the box
        var pixels: Int
        var longestSide: (channel: Int, length: Int)
    }

    private static func medianCut(_ image: RGBAImage, limit: Int) -> GIFPalette {
        let count = image.width * image.height
        var histogram = [Int](repeating: 0, count: 32768)
        var sums = [Int](repeating: 0, count: 32768 * 3)
        image.pixels.withUnsafeBufferPointer { pixels in
            for pixel in 0..<count {
                let base = pixel * 4
                if pixels[base + 3] == 0 { continue }
                let r = Int(pixels[base]), g = Int(pixels[base + 1]), b = Int(pixels[base + 2])
                let bin = (r >> 3) << 10 | (g >> 3) << 5 | (b >> 3)
                histogram[bin] += 1
                sums[bin * 3] += r
                sums[bin * 3 + 1] += g
                sums[bin * 3 + 2] += b
            }
        }
        let used = (0..<32768).filter { histogram[$0] > 0 }
        var boxes = [makeBox(used, histogram)]
        while boxes.count < limit {
            // The box with the most pixels times its longest side; a box of one bin cannot split.
            guard let (position, _) = boxes.enumerated()
                .filter({ $0.element.bins.count > 1 })
                .max(by: { $0.element.pixels * $0.element.longestSide.length < $1.element.pixels * $1.element.longestSide.length })
            else { break }
            let box = boxes[position]
            let shift = 10 - 5 * box.longestSide.channel
            let sorted = box.bins.sorted { ($0 >> shift) & 31 < ($1 >> shift) & 31 }
            // The median by pixels, keeping at least one bin on each side.
            var running = 0
            var cut = 1
            for (offset, bin) in sorted.enumerated() {
                running += histogram[bin]
                if running * 2 >= box.pixels { cut = offset + 1; break }
            }
            cut = min(max(cut, 1), sorted.count - 1)
            boxes[position] = makeBox(Array(sorted[..<cut]), histogram)
            boxes.append(makeBox(Array(sorted[cut...]), histogram))
        }
        var binIndex = [UInt8](repeating: 0, count: 32768)
        var palette: [UInt8] = []
        for (index, box) in boxes.enumerated() {
            var r = 0, g = 0, b = 0
            for bin in box.bins {
                binIndex[bin] = UInt8(index)
                r += sums[bin * 3]
                g += sums[bin * 3 + 1]
                b += sums[bin * 3 + 2]
            }
            let n = max(box.pixels, 1)
            palette += [UInt8((r + n / 2) / n), UInt8((g + n / 2) / n), UInt8((b + n / 2) / n)]
        }
        if palette.isEmpty { palette = [0, 0, 0] }
        let indices = image.pixels.withUnsafeBufferPointer { pixels in
            [UInt8](unsafeUninitializedCapacity: count) { out, initialized in
                for pixel in 0..<count {
                    let base = pixel * 4
                    let bin = Int(pixels[base] >> 3) << 10 | Int(pixels[base + 1] >> 3) << 5 | Int(pixels[base + 2] >> 3)
                    out[pixel] = binIndex[bin]
                }
                initialized = count
            }
        }
        return GIFPalette(palette: palette, indices: indices, transparentIndex: nil)
    }

    private static func makeBox(_ bins: [Int], _ histogram: [Int]) -> Box {
        var low = [31, 31, 31], high = [0, 0, 0]
        var pixels = 0
        for bin in bins {
            pixels += histogram[bin]
            for channel in 0..<3 {
                let value = (bin >> (10 - 5 * channel)) & 31
                low[channel] = min(low[channel], value)
                high[channel] = max(high[channel], value)
            }
        }
        let lengths = (0..<3).map { high[$0] - low[$0] }
        let channel = lengths.firstIndex(of: lengths.max()!)!
        return Box(bins: bins, pixels: pixels, longestSide: (channel, lengths[channel]))
    }
}
