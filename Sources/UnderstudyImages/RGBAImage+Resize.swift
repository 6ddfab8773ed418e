import Foundation

extension RGBAImage {
    /// The image resized: area averaging when shrinking, so every source
    /// pixel counts (no nearest-neighbour aliasing), bilinear when enlarging; on
    /// alpha-premultiplied values, so transparent pixels do not bleed their colour. With the C
    /// codecs the resampler is libwebp's, the one `cwebp -resize` uses; elsewhere
    /// `ImageResampler`, which filters the same way.
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
        let plan = try resize.checkedPlan(width: width, height: height, pixelLimit: pixelLimit)
        if plan.width == width, plan.height == height, plan.cropWidth == width, plan.cropHeight == height {
            return self
        }
        return try CodecBackend.resize(self, to: plan)
    }
}

extension ImageResize {
    /// The plan for a `width` x `height` source, checked.
    /// - Throws: ``ImageError`` with code `.invalidResize`.
    func checkedPlan(width: Int, height: Int, pixelLimit: Int) throws -> Plan {
        for (name, value) in [("width", self.width), ("height", self.height)] {
            if let value, value < 1 {
                throw ImageError(.invalidResize, "cannot resize to a \(name) of \(value): expected at least 1 pixel")
            }
        }
        let plan = plan(width: width, height: height)
        let (outputPixels, overflow) = plan.width.multipliedReportingOverflow(by: plan.height)
        if overflow || outputPixels > pixelLimit || outputPixels > Int.max / 4 {
            throw ImageError(
                .invalidResize,
                "cannot resize a \(width)x\(height) image to \(plan.width)x\(plan.height) (\(self)): the result is over the limit of \(pixelLimit) pixels"
            )
        }
        return plan
    }
}

