#if UNDERSTUDY_SYSTEM_CODECS
internal import CUnderstudyWebP
import Foundation

extension HazardCodec {
    /// A simple WebP file of `image`, the bitstream a ``WebPLayout`` frame carries.
    static func webP(_ image: RGBAImage, lossless: Bool, quality: Int) throws -> Data {
        try WebPCodec.encode(image, lossless: lossless, quality: quality)
    }

    /// The extended WebP `layout` describes, assembled by libwebp's mux. The mux copies the
    /// encoded frames into the container and never decodes them, so a small frame on a huge
    /// declared canvas costs only its own bytes.
    static func webP(_ layout: WebPLayout) throws -> Data {
        guard let mux = WebPMuxNew() else { throw ImageError(.encodingFailed, "WebP assembly failed: libwebp's WebPMuxNew returned nothing") }
        defer { WebPMuxDelete(mux) }
        if let animation = layout.animation {
            for frame in layout.frames {
                try with(frame.bitstream) { bitstream in
                    var info = WebPMuxFrameInfo()
                    info.bitstream = bitstream
                    info.x_offset = Int32(frame.x)
                    info.y_offset = Int32(frame.y)
                    info.duration = Int32(frame.milliseconds)
                    info.id = WEBP_CHUNK_ANMF
                    info.dispose_method = frame.dispose ? WEBP_MUX_DISPOSE_BACKGROUND : WEBP_MUX_DISPOSE_NONE
                    info.blend_method = frame.blend ? WEBP_MUX_BLEND : WEBP_MUX_NO_BLEND
                    try check(WebPMuxPushFrame(mux, &info, 1), "WebPMuxPushFrame")
                }
            }
            // A transparent white background, as browsers clear disposed frames to transparent.
            var parameters = WebPMuxAnimParams(bgcolor: 0x00FF_FFFF, loop_count: Int32(animation.loopCount))
            try check(WebPMuxSetAnimationParams(mux, &parameters), "WebPMuxSetAnimationParams")
            try check(WebPMuxSetCanvasSize(mux, Int32(animation.width), Int32(animation.height)), "WebPMuxSetCanvasSize")
        } else if let still = layout.frames.first {
            try with(still.bitstream) { bitstream in
                var bitstream = bitstream
                try check(WebPMuxSetImage(mux, &bitstream, 1), "WebPMuxSetImage")
            }
        }
        for (fourCC, payload) in [("ICCP", layout.iccProfile), ("EXIF", layout.exif), ("XMP ", layout.xmp)] where !payload.isEmpty {
            try with(Data(payload)) { chunk in
                var chunk = chunk
                try check(WebPMuxSetChunk(mux, fourCC, &chunk, 1), "WebPMuxSetChunk(\(fourCC))")
            }
        }
        var output = WebPData()
        try check(WebPMuxAssemble(mux, &output), "WebPMuxAssemble")
        defer { WebPDataClear(&output) }
        return Data(bytes: output.bytes, count: output.size)
    }

    /// `data` as the mux's WebPData for the length of `body` (the mux copies what it keeps).
    private static func with(_ data: Data, _ body: (WebPData) throws -> Void) throws {
        try data.withUnsafeBytes { raw in
            try body(WebPData(bytes: raw.bindMemory(to: UInt8.self).baseAddress, size: raw.count))
        }
    }

    private static func check(_ status: WebPMuxError, _ stage: String) throws {
        guard status != WEBP_MUX_OK else { return }
        throw ImageError(.encodingFailed, "WebP assembly failed: libwebp's \(stage) returned \(status.rawValue)")
    }
}
#endif
