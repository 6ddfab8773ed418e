import Foundation

/// The animations of the memory group: many small frames on a large canvas, and frames that
/// cover part of the canvas with each WebP disposal and blend mode. libwebp encodes each
/// frame (lossless) and its mux places them (VP8X, ANIM, ANMF): its animation encoder takes
/// whole canvases and would hold 300 of 1000 x 1000 in memory.
enum HazardAnimations {
    /// A frame of an animated WebP: where it goes and how it combines with the canvas.
    struct Frame {
        var image: RGBAImage
        /// Even, as ANMF stores half the offset.
        var x: Int
        var y: Int
        var milliseconds: Int
        /// Alpha-blend onto the canvas (else replace the rectangle, transparent pixels included).
        var blend: Bool
        /// Clear the rectangle to transparent after the frame is shown.
        var dispose: Bool
    }

    /// An animated WebP of `frames` on a `width` x `height` canvas; `loopCount` 0 loops for ever.
    static func webP(width: Int, height: Int, frames: [Frame], loopCount: Int) throws -> Data {
        let placed = try frames.map { frame in
            WebPLayout.Frame(
                bitstream: try HazardCodec.webPLossless(frame.image), x: frame.x, y: frame.y, milliseconds: frame.milliseconds,
                blend: frame.blend, dispose: frame.dispose
            )
        }
        return try HazardCodec.webP(WebPLayout(frames: placed, animation: (width, height, loopCount)))
    }

    /// 300 frames on 1000 x 1000: a grey canvas, then a 20 x 20 square stepping across it,
    /// each kept. Tiny to send, 4 MB a frame to decode, 1.2 GB for a client that keeps them all.
    static func heavyFrames() -> [(image: RGBAImage, left: Int, top: Int)] {
        let canvas = HazardPictures.draw(width: 1000, height: 1000, background: [200, 200, 200]) { _, _ in nil }
        var frames = [(image: canvas, left: 0, top: 0)]
        for index in 1..<300 {
            let colour: [UInt8] = [UInt8(index * 37 % 256), UInt8(index * 91 % 256), UInt8(255 - index % 256)]
            let square = HazardPictures.draw(width: 20, height: 20, background: colour) { _, _ in nil }
            frames.append((square, (index % 49) * 20, (index / 49) * 40))
        }
        return frames
    }

    /// On the figure: a frame for each combination of blend and disposal, with transparent
    /// halves so that blending shows. Played once; the expected image is the last composite.
    static let partialFrames: [Frame] = {
        let clear: [UInt8] = [0, 0, 0, 0]
        func half(_ colour: [UInt8], width: Int, height: Int, keep: @escaping (Int, Int) -> Bool) -> RGBAImage {
            HazardPictures.draw(width: width, height: height, background: clear) { x, y in keep(x, y) ? colour : nil }
        }
        return [
            Frame(image: HazardPictures.figure, x: 0, y: 0, milliseconds: 200, blend: false, dispose: false),
            Frame(image: half([20, 40, 220], width: 32, height: 32) { x, _ in x < 16 }, x: 32, y: 16, milliseconds: 200, blend: true, dispose: true),
            Frame(image: half([20, 170, 40], width: 32, height: 32) { _, y in y < 16 }, x: 64, y: 0, milliseconds: 200, blend: false, dispose: false),
            Frame(image: half([230, 200, 0], width: 32, height: 32) { x, _ in x < 16 }, x: 0, y: 32, milliseconds: 200, blend: false, dispose: true),
            Frame(image: half([200, 0, 200], width: 16, height: 16) { _, _ in true }, x: 0, y: 0, milliseconds: 200, blend: true, dispose: false),
        ]
    }()

    /// ``partialFrames`` composited as WebP's rules say, up to and including the last frame,
    /// on a canvas that starts transparent (what libwebp's animation decoder does).
    static let partialFramesExpected: RGBAImage = {
        var canvas = [UInt8](repeating: 0, count: 96 * 64 * 4)
        for (index, frame) in partialFrames.enumerated() {
            for y in 0..<frame.image.height {
                for x in 0..<frame.image.width {
                    let from = (y * frame.image.width + x) * 4
                    let to = ((frame.y + y) * 96 + frame.x + x) * 4
                    // Every frame pixel is opaque or clear, so blending is a choice, not arithmetic.
                    if !frame.blend || frame.image.pixels[from + 3] == 255 {
                        canvas[to..<to + 4] = frame.image.pixels[from..<from + 4]
                    }
                }
            }
            // The last frame stays on screen: its disposal would come only before a next one.
            if frame.dispose && index < partialFrames.count - 1 {
                for y in frame.y..<frame.y + frame.image.height {
                    for x in frame.x..<frame.x + frame.image.width { canvas[(y * 96 + x) * 4..<(y * 96 + x) * 4 + 4] = [0, 0, 0, 0] }
                }
            }
        }
        return RGBAImage(unchecked: 96, 64, canvas)
    }()
}
