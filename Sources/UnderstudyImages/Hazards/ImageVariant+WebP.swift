import Foundation

extension ImageVariant {
    /// `frames` as a WebP through libwebp's mux: the profile in ICCP, the orientation in EXIF,
    /// `metadata` as an XMP packet; an animation (ANIM, ANMF) when there are several frames, a
    /// loop count or a declared canvas larger than the image, as a still image's canvas is its
    /// own size.
    func webP(_ frames: [RGBAImage], frameMilliseconds: Int, lossless: Bool, quality: Int) throws -> Data {
        let written = frames.map { stored($0) }
        let first = written[0]
        var layout = WebPLayout(frames: try written.map { frame in
            WebPLayout.Frame(bitstream: try HazardCodec.webP(frame, lossless: lossless, quality: quality), milliseconds: frameMilliseconds, blend: false)
        })
        if frames.count > 1 || loop != nil || declaredSize != nil {
            let canvas = declaredSize ?? (first.width, first.height)
            guard canvas.width >= first.width, canvas.height >= first.height else {
                throw ImageError(
                    .invalidArgument,
                    "a WebP canvas holds its frames: declaredSize \(canvas.width) x \(canvas.height) is smaller than the \(first.width) x \(first.height) image"
                )
            }
            // `none` plays once, which ANIM writes as a count of 1.
            let count = loop.map { $0 ?? 1 } ?? 0
            layout.animation = (canvas.width, canvas.height, count)
        }
        layout.iccProfile = iccProfile.map { [UInt8]($0.data) } ?? []
        layout.exif = exifTIFF
        layout.xmp = metadata.map(Self.xmpPacket(bytes:)) ?? []
        return try HazardCodec.webP(layout)
    }

    /// An empty XMP packet padded with spaces to `count` bytes, as XMP writers leave room to
    /// edit in place; only spaces when the packet's frame would not fit.
    static func xmpPacket(bytes count: Int) -> [UInt8] {
        let head = Array("<?xpacket begin=\"\u{FEFF}\" id=\"W5M0MpCehiHzreSzNTczkc9d\"?><x:xmpmeta xmlns:x=\"adobe:ns:meta/\"/>".utf8)
        let tail = Array("<?xpacket end=\"w\"?>".utf8)
        guard count >= head.count + tail.count else { return [UInt8](repeating: 0x20, count: count) }
        return head + [UInt8](repeating: 0x20, count: count - head.count - tail.count) + tail
    }
}
