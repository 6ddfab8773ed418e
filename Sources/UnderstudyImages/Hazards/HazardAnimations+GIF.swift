extension HazardAnimations {
    /// On the figure: a frame for each GIF disposal method, with transparent halves so that
    /// what shows through is visible. Played once; the expected image is the last composite.
    /// GIF has "restore to previous" and no blend choice (a transparent index always leaves
    /// what is under it), so it cannot share the WebP frames.
    static let partialGIFFrames: [GIFFrame] = {
        let clear: [UInt8] = [0, 0, 0, 0]
        func half(_ colour: [UInt8], side: Int, keep: @escaping (Int, Int) -> Bool) -> RGBAImage {
            HazardPictures.draw(width: side, height: side, background: clear) { x, y in keep(x, y) ? colour : nil }
        }
        // The figure with a transparent corner, which the last frame covers: a first frame with
        // a transparent index makes decoders that keep an opaque canvas otherwise (Pillow) clear
        // "background" to transparent, as browsers do.
        let figure = HazardPictures.draw(width: 96, height: 64, background: clear) { x, y in
            guard x >= 16 || y >= 16 else { return nil }
            let index = (y * 96 + x) * 4
            return Array(HazardPictures.figure.pixels[index..<index + 3])
        }
        return [
            GIFFrame(image: figure, delay: 20, disposal: .keep),
            // Cleared to transparent once shown: a hole in the figure.
            GIFFrame(image: half([20, 40, 220], side: 32) { x, _ in x < 16 }, left: 32, top: 16, delay: 20, disposal: .background),
            // Restored to what was under it: the figure comes back.
            GIFFrame(image: half([20, 170, 40], side: 32) { _, y in y < 16 }, left: 64, top: 0, delay: 20, disposal: .previous),
            // Kept: its opaque half stays, the figure shows through the other.
            GIFFrame(image: half([230, 200, 0], side: 32) { x, _ in x < 16 }, left: 0, top: 32, delay: 20, disposal: .keep),
            GIFFrame(image: half([200, 0, 200], side: 16) { _, _ in true }, delay: 20, disposal: .keep),
        ]
    }()

    /// ``partialGIFFrames`` composited as browsers do, up to and including the last frame: a
    /// transparent index leaves the canvas, "background" clears to transparent, "previous"
    /// puts back what the frame covered.
    static let partialGIFFramesExpected: RGBAImage = {
        let width = 96
        var canvas = [UInt8](repeating: 0, count: width * 64 * 4)
        for (index, frame) in partialGIFFrames.enumerated() {
            let before = canvas
            let image = frame.image
            for y in 0..<image.height {
                for x in 0..<image.width where image.pixels[(y * image.width + x) * 4 + 3] == 255 {
                    let from = (y * image.width + x) * 4
                    let to = ((frame.top + y) * width + frame.left + x) * 4
                    canvas[to..<to + 4] = image.pixels[from..<from + 4]
                }
            }
            // The last frame stays on screen: its disposal would come only before a next one.
            guard index < partialGIFFrames.count - 1, frame.disposal != .keep else { continue }
            for y in frame.top..<frame.top + image.height {
                let row = (y * width + frame.left) * 4..<(y * width + frame.left + image.width) * 4
                canvas[row] = frame.disposal == .previous ? before[row] : ArraySlice(repeating: 0, count: row.count)
            }
        }
        return RGBAImage(unchecked: width, 64, canvas)
    }()
}
