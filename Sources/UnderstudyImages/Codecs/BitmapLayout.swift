/// How a decoded bitmap's samples lie in memory, as CoreGraphics describes a `CGImage` (bits per
/// component, bytes per row, alpha info, byte order), in types of our own: so that the step
/// that turns ImageIO's samples into straight RGBA compiles and is tested on Linux, where
/// CoreGraphics does not exist.
///
/// ImageIO hands back what the file holds: a PNG's 16-bit or grey+alpha samples, straight
/// alpha for PNG, premultiplied for some other formats. Converting those samples ourselves,
/// rather than drawing into a premultiplied sRGB context, keeps a translucent pixel's colour
/// and applies no colour management, so every platform decodes the same pixels libpng does.
struct BitmapLayout: Sendable, Equatable {
    /// The colour channels.
    enum Colour: Sendable, Equatable {
        /// One channel (CoreGraphics' monochrome model).
        case grey
        /// Red, green, blue.
        case rgb
    }

    /// Where alpha is and what it means, as `CGImageAlphaInfo` names it.
    enum Alpha: Sendable, Equatable {
        case none, skipFirst, skipLast, first, last, premultipliedFirst, premultipliedLast

        var isFirst: Bool { self == .skipFirst || self == .first || self == .premultipliedFirst }
        var isPremultiplied: Bool { self == .premultipliedFirst || self == .premultipliedLast }
        var hasChannel: Bool { self != .none }
        var isSkipped: Bool { self == .skipFirst || self == .skipLast }
    }

    var colour: Colour
    var alpha: Alpha
    /// 8 or 16.
    var bitsPerComponent: Int
    var bytesPerRow: Int
    /// CoreGraphics' little-endian byte orders: with 8-bit components a pixel's components lie
    /// in reverse order (`premultipliedFirst` little-endian is BGRA); with 16-bit ones each
    /// component is little-endian.
    var littleEndian: Bool

    /// Whether the samples already are straight 8-bit RGBA rows without padding: copied as they are.
    func isRGBA8(width: Int) -> Bool {
        colour == .rgb && alpha == .last && bitsPerComponent == 8 && !littleEndian && bytesPerRow == width * 4
    }

    /// The samples in `bytes` as straight 8-bit RGBA: 16-bit samples rounded to 8 bits as
    /// libpng's `png_set_scale_16` rounds them, premultiplied colour divided by alpha, skipped or
    /// missing alpha opaque, grey spread to red, green and blue.
    func straightRGBA(_ bytes: UnsafeRawBufferPointer, width: Int, height: Int) throws -> RGBAImage {
        let colours = colour == .rgb ? 3 : 1
        let components = colours + (alpha.hasChannel ? 1 : 0)
        let bytesPerComponent = bitsPerComponent / 8
        guard bitsPerComponent == 8 || bitsPerComponent == 16,
              bytesPerRow >= width * components * bytesPerComponent,
              bytes.count >= (height > 0 ? (height - 1) * bytesPerRow + width * components * bytesPerComponent : 0)
        else {
            throw ImageError(.corrupt, "cannot read a \(width)x\(height) bitmap of \(components) \(bitsPerComponent)-bit components in \(bytes.count) bytes, \(bytesPerRow) a row")
        }
        if isRGBA8(width: width) {
            return RGBAImage(unchecked: width, height, Array(bytes.prefix(width * height * 4)))
        }
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        var sample = [UInt8](repeating: 0, count: components)
        for y in 0..<height {
            for x in 0..<width {
                let start = y * bytesPerRow + x * components * bytesPerComponent
                for index in 0..<components {
                    let at = start + index * bytesPerComponent
                    if bytesPerComponent == 1 {
                        sample[index] = bytes[at]
                    } else {
                        let value = littleEndian ? Int(bytes[at]) | Int(bytes[at + 1]) << 8 : Int(bytes[at]) << 8 | Int(bytes[at + 1])
                        sample[index] = UInt8((value * 255 + 32_895) >> 16)
                    }
                }
                if bytesPerComponent == 1, littleEndian { sample.reverse() }
                let colourStart = alpha.hasChannel && alpha.isFirst ? 1 : 0
                var a = 255
                if alpha.hasChannel, !alpha.isSkipped {
                    a = Int(sample[alpha.isFirst ? 0 : colours])
                }
                let out = (y * width + x) * 4
                for channel in 0..<3 {
                    var value = Int(sample[colourStart + (colours == 3 ? channel : 0)])
                    if alpha.isPremultiplied {
                        value = a == 0 ? 0 : min(255, (value * 255 + a / 2) / a)
                    }
                    pixels[out + channel] = UInt8(value)
                }
                pixels[out + 3] = UInt8(a)
            }
        }
        return RGBAImage(unchecked: width, height, pixels)
    }
}
