#if UNDERSTUDY_SYSTEM_CODECS
internal import CUnderstudyGIF
import Foundation

/// giflib: GIF87a and GIF89a, stills and animations.
///
/// Decoding composites each image onto the logical screen as browsers do: the canvas starts
/// transparent, a frame's transparent index leaves what is under it, and its disposal (keep,
/// restore to background, which browsers and this decoder take as transparent, or restore to
/// previous) is applied before the next frame. An index beyond the colour table is drawn
/// transparent.
///
/// Encoding chooses a palette per frame from the image: its exact colours when it has at most
/// 256 (255 when some pixels are transparent), otherwise 255 or 256 colours by median cut
/// (Heckbert) over a 15-bit (5 bits a channel) histogram, each colour the mean of the pixels
/// of its box, without dithering (as Pillow's adaptive palette). Pixels with alpha 0 take a
/// transparent index; other alpha is dropped (GIF has no partial transparency).
enum GIFCodec {
    /// GIF stores each dimension in 16 bits.
    static let maxDimension = 65535

    /// A GIF's frames as a viewer shows them, with their delays and NETSCAPE2.0 loop count.
    struct Animation {
        var frames: [RGBAImage]
        /// Each frame's delay, in hundredths of a second, as stored.
        var delays: [Int]
        /// 0 for ever; `nil` without a NETSCAPE2.0 extension (played once).
        var loopCount: Int?
    }

    /// giflib's reader, closed with its owner.
    private final class Reader {
        let gif: UnsafeMutablePointer<GifFileType>
        private let source: UnsafeMutablePointer<usd_gif_source>
        // giflib reads from these bytes until closed.
        private let bytes: CBuffer

        init(_ data: Data) throws {
            bytes = CBuffer(data)
            source = .allocate(capacity: 1)
            source.initialize(to: usd_gif_source(data: bytes.base, size: bytes.count, offset: 0))
            var error: Int32 = 0
            let gif = usd_gif_open_reader(source, &error)
            guard let gif else {
                source.deallocate()
                throw GIFCodec.error(error, data: data)
            }
            self.gif = gif
        }

        deinit {
            usd_gif_close_reader(gif)
            source.deallocate()
        }
    }

    /// The first frame as a viewer shows it.
    static func decode(_ data: Data, pixelLimit: Int) throws -> RGBAImage {
        try decodeAnimation(data, pixelLimit: pixelLimit, firstOnly: true).frames[0]
    }

    /// Every frame composited, with delays and loop count. All frames together must be within
    /// `pixelLimit` pixels; each is checked before it is decoded.
    static func decodeAnimation(_ data: Data, pixelLimit: Int, firstOnly: Bool = false) throws -> Animation {
        let reader = try Reader(data)
        let width = Int(usd_gif_screen_width(reader.gif))
        let height = Int(usd_gif_screen_height(reader.gif))
        try RGBAImage.checkSize(width: width, height: height, pixelLimit: pixelLimit)
        var canvas = [UInt8](repeating: 0, count: width * height * 4)
        var animation = Animation(frames: [], delays: [], loopCount: nil)
        var loopCount: Int32 = -1
        while true {
            var frame = usd_gif_frame()
            var error: Int32 = 0
            let status = usd_gif_next_frame(reader.gif, pixelLimit, &frame, &loopCount, &error)
            if status == 0 { break }
            if status == -2 {
                throw ImageError(
                    .tooLarge,
                    "GIF image of \(frame.width)x\(frame.height) = \(Int(frame.width) * Int(frame.height)) pixels (on a \(width)x\(height) screen) is over the limit of \(pixelLimit) pixels; raise pixelLimit to allow it"
                )
            }
            guard status == 1 else { throw GIFCodec.error(error, data: data) }
            defer { usd_gif_frame_free(&frame) }
            if !firstOnly, (animation.frames.count + 1) * width * height > pixelLimit {
                throw ImageError(
                    .tooLarge,
                    "a GIF of more than \(animation.frames.count) frames of \(width)x\(height) is over the limit of \(pixelLimit) pixels in all; raise pixelLimit to allow it"
                )
            }
            let previous = frame.disposal == DISPOSE_PREVIOUS ? canvas : nil
            draw(frame, on: &canvas, width: width, height: height)
            animation.frames.append(RGBAImage(unchecked: width, height, canvas))
            animation.delays.append(Int(frame.delay_cs))
            if firstOnly { break }
            switch frame.disposal {
            case DISPOSE_BACKGROUND: clear(frame, on: &canvas, width: width, height: height)
            case DISPOSE_PREVIOUS: canvas = previous ?? canvas
            default: break
            }
        }
        guard !animation.frames.isEmpty else {
            throw ImageError(.corrupt, "corrupt GIF: it has a screen descriptor but no image (the trailer comes first)")
        }
        animation.loopCount = loopCount >= 0 ? Int(loopCount) : nil
        return animation
    }

    /// The part of the frame inside the screen, as (x0, y0, x1, y1) in screen pixels.
    private static func visible(_ frame: usd_gif_frame, width: Int, height: Int) -> (Int, Int, Int, Int) {
        let left = Int(frame.left), top = Int(frame.top)
        return (min(left, width), min(top, height), min(left + Int(frame.width), width), min(top + Int(frame.height), height))
    }

    private static func draw(_ frame: usd_gif_frame, on canvas: inout [UInt8], width: Int, height: Int) {
        let (x0, y0, x1, y1) = visible(frame, width: width, height: height)
        guard let indices = frame.indices, let colors = frame.colors, x0 < x1, y0 < y1 else { return }
        let frameWidth = Int(frame.width)
        let transparent = Int(frame.transparent_index)
        let colorCount = Int(frame.color_count)
        canvas.withUnsafeMutableBufferPointer { out in
            for y in y0..<y1 {
                let sourceRow = (y - Int(frame.top)) * frameWidth - Int(frame.left)
                for x in x0..<x1 {
                    let index = Int(indices[sourceRow + x])
                    if index == transparent || index >= colorCount { continue }
                    let color = colors[index]
                    let offset = (y * width + x) * 4
                    out[offset] = color.Red
                    out[offset + 1] = color.Green
                    out[offset + 2] = color.Blue
                    out[offset + 3] = 255
                }
            }
        }
    }

    private static func clear(_ frame: usd_gif_frame, on canvas: inout [UInt8], width: Int, height: Int) {
        let (x0, y0, x1, y1) = visible(frame, width: width, height: height)
        guard x0 < x1, y0 < y1 else { return }
        for y in y0..<y1 {
            canvas.replaceSubrange((y * width + x0) * 4..<(y * width + x1) * 4, with: repeatElement(0, count: (x1 - x0) * 4))
        }
    }

    // MARK: Encoding

    /// A still GIF.
    static func encode(_ image: RGBAImage) throws -> Data {
        try encode([image], delays: [0], loopCount: nil)
    }

    /// A looping animated GIF of equally sized frames, each shown for `frameDuration` rounded
    /// to hundredths of a second (at least 2: browsers show shorter delays as 10).
    static func encodeAnimation(_ frames: [RGBAImage], frameDuration: Duration) throws -> Data {
        guard !frames.isEmpty else { throw ImageError(.invalidArgument, "an animation needs at least 1 frame") }
        let delay = max(2, Int((Double(frameDuration.milliseconds) / 10).rounded()))
        return try encode(frames, delays: Array(repeating: min(delay, 65535), count: frames.count), loopCount: 0)
    }

    /// An animated GIF with a delay of its own for each frame, in hundredths of a second, taken
    /// as given (0 and 1 included, which browsers clamp), looping for ever or, without the
    /// NETSCAPE2.0 extension, played once: what the animation hazards need.
    static func encode(_ frames: [RGBAImage], delays: [Int], looping: Bool) throws -> Data {
        try encode(frames, delays: delays, loopCount: looping ? 0 : nil)
    }

    /// The same with a NETSCAPE2.0 loop count of its own (0: for ever; `nil`: no extension) and,
    /// when given, a comment extension ahead of the first image.
    static func encode(_ frames: [RGBAImage], delays: [Int], loopCount: Int?, comment: String? = nil) throws -> Data {
        guard !frames.isEmpty, delays.count == frames.count else {
            throw ImageError(.invalidArgument, "an animation needs at least 1 frame and one delay per frame")
        }
        return try encodeFrames(frames, delays: delays, loopCount: loopCount, comment: comment)
    }

    /// giflib's writer and the memory it writes to, freed with their owner.
    private final class Writer {
        private let sink: UnsafeMutablePointer<usd_gif_sink>
        private var gif: UnsafeMutablePointer<GifFileType>?

        convenience init(width: Int, height: Int, looping: Bool) throws {
            try self.init(width: width, height: height, loopCount: looping ? 0 : nil)
        }

        /// `loopCount` 0 loops for ever; `nil` writes no loop extension (played once).
        init(width: Int, height: Int, loopCount: Int?) throws {
            sink = .allocate(capacity: 1)
            sink.initialize(to: usd_gif_sink(bytes: nil, size: 0, capacity: 0, failed: 0))
            var error: Int32 = 0
            gif = usd_gif_open_writer_loop(sink, Int32(width), Int32(height), Int32(loopCount ?? -1), &error)
            if gif == nil { throw GIFCodec.encodingError(error, stage: "EGifPutScreenDesc") }
        }

        deinit {
            if let gif { var error: Int32 = 0; _ = usd_gif_finish(gif, &error) }
            free(sink.pointee.bytes)
            sink.deallocate()
        }

        func put(
            _ indices: [UInt8], left: Int = 0, top: Int = 0, width: Int, height: Int, palette: [UInt8], transparent: Int?, delay: Int, disposal: Int32
        ) throws {
            var error: Int32 = 0
            let ok = indices.withUnsafeBufferPointer { indices in
                palette.withUnsafeBufferPointer { palette in
                    usd_gif_put_frame_at(
                        gif, indices.baseAddress, Int32(left), Int32(top), Int32(width), Int32(height), palette.baseAddress, Int32(palette.count / 3),
                        Int32(transparent ?? -1), Int32(delay), disposal, &error
                    )
                }
            }
            guard ok != 0 else { throw GIFCodec.encodingError(error, stage: "EGifPutImageDesc/EGifPutLine") }
        }

        /// A comment extension, which giflib splits into sub-blocks of 255 bytes.
        func comment(_ text: String) throws {
            guard let gif, EGifPutComment(gif, text) != GIF_ERROR else {
                throw GIFCodec.encodingError(gif?.pointee.Error ?? 0, stage: "EGifPutComment")
            }
        }

        func finish() throws -> Data {
            guard let gif else { return Data() }
            self.gif = nil
            var error: Int32 = 0
            guard usd_gif_finish(gif, &error) != 0, sink.pointee.failed == 0, let bytes = sink.pointee.bytes else {
                throw GIFCodec.encodingError(error, stage: "EGifCloseFile")
            }
            return Data(bytes: bytes, count: sink.pointee.size)
        }
    }

    /// An animated GIF of frames placed on a `width` x `height` screen, each at its own
    /// position with its own delay (hundredths of a second) and disposal: the heavy-animation
    /// hazard's many small frames on a large canvas, and the partial frames' disposals.
    static func encode(placed frames: [GIFFrame], width: Int, height: Int, loopCount: Int?) throws -> Data {
        let writer = try Writer(width: width, height: height, loopCount: loopCount)
        for frame in frames {
            let quantized = GIFPalette.quantize(frame.image)
            try writer.put(
                quantized.indices, left: frame.left, top: frame.top, width: frame.image.width, height: frame.image.height,
                palette: quantized.palette, transparent: quantized.transparentIndex, delay: frame.delay, disposal: frame.disposal.rawValue
            )
        }
        return try writer.finish()
    }

    private static func encodeFrames(_ frames: [RGBAImage], delays: [Int], loopCount: Int?, comment: String?) throws -> Data {
        let first = frames[0]
        guard first.width <= maxDimension, first.height <= maxDimension else {
            throw ImageError(
                .invalidDimensions,
                "cannot encode a \(first.width)x\(first.height) image as GIF: GIF allows at most \(maxDimension)x\(maxDimension) pixels"
            )
        }
        let writer = try Writer(width: first.width, height: first.height, loopCount: loopCount)
        if let comment { try writer.comment(comment) }
        for (frame, delay) in zip(frames, delays) {
            let quantized = GIFPalette.quantize(frame)
            // A frame with holes must clear the previous one, or it would show through them.
            let disposal = quantized.transparentIndex != nil && frames.count > 1 ? DISPOSE_BACKGROUND : DISPOSE_DO_NOT
            try writer.put(
                quantized.indices, width: frame.width, height: frame.height, palette: quantized.palette,
                transparent: quantized.transparentIndex, delay: delay, disposal: disposal
            )
        }
        return try writer.finish()
    }

    private static func error(_ code: Int32, data: Data) -> ImageError {
        let message = String(cString: usd_gif_error_string(code))
        switch code {
        case D_GIF_ERR_READ_FAILED, D_GIF_ERR_EOF_TOO_SOON,
             // The 6-byte signature and 7-byte screen descriptor did not fit.
             D_GIF_ERR_NO_SCRN_DSCR where data.count < 13:
            return ImageError(.truncated, "truncated GIF: the data ends after \(data.count) bytes, before the image is complete (giflib: \(message), \(code))")
        case D_GIF_ERR_NOT_GIF_FILE:
            return ImageError(.notAnImage, "not a GIF: giflib: \(message) (\(code))")
        default:
            return ImageError(.corrupt, "corrupt GIF: giflib: \(message) (\(code))")
        }
    }

    private static func encodingError(_ code: Int32, stage: String) -> ImageError {
        ImageError(.encodingFailed, "GIF encoding failed: giflib: \(stage): \(String(cString: usd_gif_error_string(code))) (\(code))")
    }
}
#endif
