#if !UNDERSTUDY_SYSTEM_CODECS && canImport(ImageIO)
import CoreGraphics
import Foundation
import ImageIO

/// The codecs of Apple platforms: ImageIO decodes what the OS reads and encodes what it writes,
/// both asked at run time (`CGImageSourceCopyTypeIdentifiers`,
/// `CGImageDestinationCopyTypeIdentifiers`): PNG, JPEG and GIF everywhere, HEIC where the device
/// or simulator has an HEVC encoder, WebP and AVIF decoded on recent systems. With the
/// `HomebrewCodecs` trait on macOS, libwebp and libavif add WebP and AVIF encoding.
enum CodecBackend {
    /// The build, as errors name it.
    static var platform: String {
        #if os(macOS)
        "macOS (ImageIO)"
        #elseif os(iOS)
        "iOS (ImageIO)"
        #elseif os(tvOS)
        "tvOS (ImageIO)"
        #elseif os(watchOS)
        "watchOS (ImageIO)"
        #else
        "this Apple platform (ImageIO)"
        #endif
    }

    /// Each format's uniform type identifier, as ImageIO names it.
    private static func typeIdentifier(_ kind: ImageKind) -> String {
        switch kind {
        case .png: "public.png"
        case .jpeg: "public.jpeg"
        case .gif: "com.compuserve.gif"
        case .heic: "public.heic"
        case .webp: "org.webmproject.webp"
        case .avif: "public.avif"
        }
    }

    private static let readable = Set((CGImageSourceCopyTypeIdentifiers() as? [String]) ?? [])
    private static let writable = Set((CGImageDestinationCopyTypeIdentifiers() as? [String]) ?? [])

    static func canDecode(_ kind: ImageKind) -> Bool {
        if homebrewHandles(kind) { return true }
        return readable.contains(typeIdentifier(kind))
    }

    static func canEncode(_ kind: ImageKind) -> Bool {
        if homebrewHandles(kind) { return true }
        return writable.contains(typeIdentifier(kind))
    }

    /// Whether libwebp or libavif from Homebrew handle the format in this build.
    private static func homebrewHandles(_ kind: ImageKind) -> Bool {
        #if UNDERSTUDY_HOMEBREW_CODECS
        kind == .webp || kind == .avif
        #else
        false
        #endif
    }

    // MARK: Decoding

    static func decode(_ kind: ImageKind, _ data: Data, pixelLimit: Int) throws -> RGBAImage {
        #if UNDERSTUDY_HOMEBREW_CODECS
        if kind == .webp { return try WebPCodec.decode(data, pixelLimit: pixelLimit) }
        if kind == .avif { return try AVIFCodec.decode(data, pixelLimit: pixelLimit) }
        #endif
        return try image(at: 0, of: imageSource(kind, data), kind, data, pixelLimit: pixelLimit)
    }

    /// Every frame of a GIF or an image sequence, as ImageIO composites them.
    static func decodeFrames(_ kind: ImageKind, _ data: Data, pixelLimit: Int) throws -> [RGBAImage] {
        guard kind == .gif || kind == .avif else { return [try decode(kind, data, pixelLimit: pixelLimit)] }
        #if UNDERSTUDY_HOMEBREW_CODECS
        if kind == .avif { return try AVIFCodec.decodeFrames(data, pixelLimit: pixelLimit) }
        #endif
        let source = try imageSource(kind, data)
        var frames: [RGBAImage] = []
        var pixels = 0
        for index in 0..<CGImageSourceGetCount(source) {
            let frame = try image(at: index, of: source, kind, data, pixelLimit: pixelLimit - pixels)
            pixels += frame.width * frame.height
            frames.append(frame)
        }
        return frames
    }

    static func decode(_ kind: ImageKind, _ data: Data, resizedTo resize: ImageResize, pixelLimit: Int) throws -> RGBAImage {
        try decode(kind, data, pixelLimit: pixelLimit).resized(resize, pixelLimit: pixelLimit)
    }

    static func resize(_ image: RGBAImage, to plan: ImageResize.Plan) throws -> RGBAImage {
        ImageResampler.resize(image, to: plan)
    }

    private static func imageSource(_ kind: ImageKind, _ data: Data) throws -> CGImageSource {
        guard let source = CGImageSourceCreateWithData(data as CFData, nil), CGImageSourceGetCount(source) > 0 else {
            throw ImageError(.corrupt, "corrupt \(kind.name): ImageIO finds no image in its \(data.count) bytes")
        }
        return source
    }

    /// Image `index` as 8-bit RGBA, its size checked against `pixelLimit` before it is decoded.
    private static func image(at index: Int, of source: CGImageSource, _ kind: ImageKind, _ data: Data, pixelLimit: Int) throws -> RGBAImage {
        if let properties = CGImageSourceCopyPropertiesAtIndex(source, index, nil) as? [CFString: Any],
           let width = properties[kCGImagePropertyPixelWidth] as? Int,
           let height = properties[kCGImagePropertyPixelHeight] as? Int {
            try RGBAImage.checkSize(width: width, height: height, pixelLimit: pixelLimit)
        }
        let options = [kCGImageSourceShouldCache: false] as CFDictionary
        guard let image = CGImageSourceCreateImageAtIndex(source, index, options) else {
            if CGImageSourceGetStatusAtIndex(source, index) == .statusIncomplete {
                throw ImageError.truncated(kind.name, byteCount: data.count)
            }
            throw ImageError(.corrupt, "corrupt \(kind.name): ImageIO cannot decode image \(index) (status \(CGImageSourceGetStatusAtIndex(source, index).rawValue))")
        }
        try RGBAImage.checkSize(width: image.width, height: image.height, pixelLimit: pixelLimit)
        return try rgba(image)
    }

    /// `image` as straight 8-bit RGBA with no colour management, as libpng decodes: its own
    /// grey or RGB samples converted by ``BitmapLayout`` (tested on Linux); anything else (CMYK,
    /// indexed, floating point, all opaque in practice) drawn into sRGB.
    static func rgba(_ image: CGImage) throws -> RGBAImage {
        if let layout = BitmapLayout(image), let data = image.dataProvider?.data, let bytes = CFDataGetBytePtr(data) {
            let buffer = UnsafeRawBufferPointer(start: bytes, count: CFDataGetLength(data))
            return try layout.straightRGBA(buffer, width: image.width, height: image.height)
        }
        let (width, height) = (image.width, image.height)
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        let drawn = pixels.withUnsafeMutableBytes { buffer -> Bool in
            guard let context = CGContext(
                data: buffer.baseAddress, width: width, height: height, bitsPerComponent: 8, bytesPerRow: width * 4,
                space: colourSpace, bitmapInfo: CGImageAlphaInfo.premultipliedLast.rawValue
            ) else { return false }
            context.draw(image, in: CGRect(x: 0, y: 0, width: width, height: height))
            return true
        }
        guard drawn else { throw ImageError(.corrupt, "cannot draw a \(width)x\(height) image into RGBA: CoreGraphics made no context") }
        let layout = BitmapLayout(colour: .rgb, alpha: .premultipliedLast, bitsPerComponent: 8, bytesPerRow: width * 4, littleEndian: false)
        return try pixels.withUnsafeBytes { try layout.straightRGBA($0, width: width, height: height) }
    }

    private static var colourSpace: CGColorSpace {
        CGColorSpace(name: CGColorSpace.sRGB) ?? CGColorSpaceCreateDeviceRGB()
    }

    // MARK: Encoding

    static func encode(_ image: RGBAImage, as target: ImageFormat) throws -> Data {
        #if UNDERSTUDY_HOMEBREW_CODECS
        switch target {
        case .webp(let quality): return try WebPCodec.encode(image, lossless: false, quality: quality)
        case .webpLossless: return try WebPCodec.encode(image, lossless: true, quality: 75)
        case .avif(let quality, let speed): return try AVIFCodec.encode(image, quality: quality, speed: speed)
        default: break
        }
        #endif
        return try write([image], as: target, frameDelay: nil)
    }

    /// An animated GIF (or, with Homebrew's libraries, WebP or AVIF); ImageIO writes no other
    /// animation.
    static func encodeAnimation(_ frames: [RGBAImage], frameDuration: Duration, as target: ImageFormat) throws -> Data {
        #if UNDERSTUDY_HOMEBREW_CODECS
        switch target {
        case .webp(let quality):
            return try WebPCodec.encodeAnimation(frames, frameDuration: frameDuration, lossless: false, quality: quality)
        case .webpLossless:
            return try WebPCodec.encodeAnimation(frames, frameDuration: frameDuration, lossless: true, quality: 75)
        case .avif(let quality, let speed):
            return try AVIFCodec.encodeAnimation(frames, frameDuration: frameDuration, quality: quality, speed: speed)
        default: break
        }
        #endif
        guard target == .gif else {
            throw ImageError(.unsupportedFormat, "cannot encode an animated \(target.kind.name) on \(platform): ImageIO writes animations as GIF only; serve the animation as GIF, or a file made with `understudy transcode`")
        }
        return try write(frames, as: target, frameDelay: Double(frameDuration.milliseconds) / 1000)
    }

    /// The frames written by ImageIO: one image, or a looping GIF with `frameDelay` seconds each.
    private static func write(_ frames: [RGBAImage], as target: ImageFormat, frameDelay: Double?) throws -> Data {
        let kind = target.kind
        let output = NSMutableData()
        guard let destination = CGImageDestinationCreateWithData(
            output as CFMutableData, typeIdentifier(kind) as CFString, frames.count, nil
        ) else {
            throw ImageError(.encodingFailed, "\(kind.name) encoding failed: ImageIO on \(platform) made no destination for \(typeIdentifier(kind))")
        }
        var properties: [CFString: Any] = [:]
        switch target {
        case .jpeg(let quality):
            properties[kCGImageDestinationLossyCompressionQuality] = Double(ImageFormat.clampedJPEGQuality(quality)) / 100
        case .jpegProgressive(let quality):
            properties[kCGImageDestinationLossyCompressionQuality] = Double(ImageFormat.clampedJPEGQuality(quality)) / 100
            properties[kCGImagePropertyJFIFDictionary] = [kCGImagePropertyJFIFIsProgressive: true]
        case .heic(let quality):
            properties[kCGImageDestinationLossyCompressionQuality] = Double(ImageFormat.clampedQuality(quality)) / 100
        case .webp(let quality), .avif(let quality, _):
            properties[kCGImageDestinationLossyCompressionQuality] = Double(ImageFormat.clampedQuality(quality)) / 100
        case .png, .webpLossless, .gif:
            break
        }
        if let frameDelay {
            CGImageDestinationSetProperties(destination, [kCGImagePropertyGIFDictionary: [kCGImagePropertyGIFLoopCount: 0]] as CFDictionary)
            properties[kCGImagePropertyGIFDictionary] = [kCGImagePropertyGIFDelayTime: frameDelay]
        }
        let overWhite = kind == .jpeg
        for frame in frames {
            CGImageDestinationAddImage(destination, try cgImage(frame, overWhite: overWhite), properties as CFDictionary)
        }
        guard CGImageDestinationFinalize(destination) else {
            throw ImageError(.encodingFailed, "\(kind.name) encoding failed: ImageIO on \(platform) could not finish the \(frames[0].width)x\(frames[0].height) image")
        }
        return output as Data
    }

    /// A CGImage of `image`'s pixels (straight alpha); for JPEG, which has no alpha, composited
    /// over white first, as the C encoder does.
    private static func cgImage(_ image: RGBAImage, overWhite: Bool) throws -> CGImage {
        var pixels = image.pixels
        let opaque = overWhite || image.isOpaque
        if overWhite {
            for offset in stride(from: 0, to: pixels.count, by: 4) where pixels[offset + 3] != 255 {
                let alpha = Int(pixels[offset + 3])
                for channel in offset..<offset + 3 {
                    pixels[channel] = UInt8((Int(pixels[channel]) * alpha + 255 * (255 - alpha) + 127) / 255)
                }
                pixels[offset + 3] = 255
            }
        }
        let alphaInfo: CGImageAlphaInfo = opaque ? .noneSkipLast : .last
        guard let provider = CGDataProvider(data: Data(pixels) as CFData),
              let cgImage = CGImage(
                  width: image.width, height: image.height, bitsPerComponent: 8, bitsPerPixel: 32, bytesPerRow: image.width * 4,
                  space: colourSpace, bitmapInfo: CGBitmapInfo(rawValue: alphaInfo.rawValue), provider: provider,
                  decode: nil, shouldInterpolate: false, intent: .defaultIntent
              )
        else {
            throw ImageError(.encodingFailed, "cannot hand a \(image.width)x\(image.height) image to ImageIO: CoreGraphics made no image of its pixels")
        }
        return cgImage
    }
}
extension BitmapLayout {
    /// The layout of `image`'s samples, when they are grey or RGB of 8 or 16 bits an integer.
    init?(_ image: CGImage) {
        guard let model = image.colorSpace?.model, model == .rgb || model == .monochrome,
              image.bitsPerComponent == 8 || image.bitsPerComponent == 16,
              !image.bitmapInfo.contains(.floatComponents)
        else { return nil }
        let alpha: Alpha
        switch image.alphaInfo {
        case .none: alpha = .none
        case .noneSkipFirst: alpha = .skipFirst
        case .noneSkipLast: alpha = .skipLast
        case .first: alpha = .first
        case .last: alpha = .last
        case .premultipliedFirst: alpha = .premultipliedFirst
        case .premultipliedLast: alpha = .premultipliedLast
        default: return nil
        }
        let colour: Colour = model == .rgb ? .rgb : .grey
        let components = (colour == .rgb ? 3 : 1) + (alpha == .none ? 0 : 1)
        guard image.bitsPerPixel == components * image.bitsPerComponent else { return nil }
        let order = image.bitmapInfo.intersection(.byteOrderMask)
        self.init(
            colour: colour, alpha: alpha, bitsPerComponent: image.bitsPerComponent, bytesPerRow: image.bytesPerRow,
            littleEndian: order == .byteOrder16Little || order == .byteOrder32Little
        )
    }
}
#endif
