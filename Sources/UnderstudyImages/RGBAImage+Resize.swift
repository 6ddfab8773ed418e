import CUnderstudyWebP

extension RGBAImage {
    /// The image resized (SPEC section 12): area averaging when shrinking, so every source
    /// pixel counts (no nearest-neighbour aliasing), bilinear when enlarging; on
    /// alpha-premultiplied values, so transparent pixels do not bleed their colour. The
    /// resampler is libwebp's, the one `cwebp -resize` uses.
    ///
    /// ```swift
    /// let thumbnail = try photo.resized(ImageResize(width: 320))
    /// ```
    /// - Parameters:
    ///   - resize: the size wanted and how to fit it.
    ///   - pixelLimit: the most pixels the result may have.
    /// - Throws: ``ImageError`` with code `.invalidResize` for a width or height below 1 or a
    ///   result over `pixelLimit`.
    public func resized(_ resize: ImageResize, pixelLimit: Int = RGBAImage.defaultPixelLimit) throws -> RGBAImage {
        for (name, value) in [("width", resize.width), ("height", resize.height)] {
            if let value, value < 1 {
                throw ImageError(.invalidResize, "cannot resize to a \(name) of \(value): expected at least 1 pixel")
            }
        }
        let plan = resize.plan(width: width, height: height)
        let (outputPixels, overflow) = plan.width.multipliedReportingOverflow(by: plan.height)
        if overflow || outputPixels > pixelLimit || outputPixels > Int.max / 4 {
            throw ImageError(
                .invalidResize,
                "cannot resize a \(width)x\(height) image to \(plan.width)x\(plan.height) (\(resize)): the result is over the limit of \(pixelLimit) pixels"
            )
        }
        if plan.width == width, plan.height == height, plan.cropWidth == width, plan.cropHeight == height {
            return self
        }
        let count = plan.width * plan.height * 4
        var ok: Int32 = 0
        let resampled = [UInt8](unsafeUninitializedCapacity: count) { out, initialized in
            ok = pixels.withUnsafeBufferPointer { source in
                usd_webp_rescale_rgba(
                    source.baseAddress, Int32(width * 4),
                    Int32(plan.cropX), Int32(plan.cropY), Int32(plan.cropWidth), Int32(plan.cropHeight),
                    out.baseAddress, Int32(plan.width), Int32(plan.height)
                )
            }
            initialized = count
        }
        guard ok != 0 else {
            throw ImageError(.encodingFailed, "cannot resize \(width)x\(height) to \(plan.width)x\(plan.height): libwebp's rescaler ran out of memory")
        }
        return RGBAImage(unchecked: plan.width, plan.height, resampled)
    }
}
