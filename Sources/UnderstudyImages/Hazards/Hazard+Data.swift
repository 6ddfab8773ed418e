import Foundation
import UnderstudySupport

extension Hazard {
    /// The image a correct client displays, as RGBA; `nil` where the outcome is not pixels
    /// (an error, a refusal, a cache decision).
    public var expected: RGBAImage? {
        guard hasExpectedImage else { return nil }
        switch self {
        case .cmyk, .ycck: return HazardPictures.inkBars
        case .displayP3, .adobeRGB: return HazardPictures.profileBars
        case .png16Bit: return HazardPictures.deepRampExpected
        case .pngGreyAlpha: return HazardPictures.greyAlphaExpected
        case .pngIndexedTransparency: return HazardPictures.paletteExpected
        case .animationPartialFrames: return HazardAnimations.partialFramesExpected
        case .animationPartialFramesGIF: return HazardAnimations.partialGIFFramesExpected
        default: return HazardPictures.figure
        }
    }

    /// The image bytes of the hazard: for pixel and memory hazards the whole body served; for
    /// header hazards the image their response carries (a PNG of the figure; WebP for
    /// `extension-mismatch`); for cache hazards the first answer's image.
    ///
    /// The same hazard gives the same bytes on every run.
    /// - Throws: ``ImageError`` with code `.unsupportedFormat` where this build cannot encode
    ///   the format the hazard needs (SPEC 18): JPEG hazards and most others need the C codecs.
    public func imageData() throws -> Data {
        // The bytes never change (deterministic), and the heavy animations take a while to
        // encode: `stubHazards` and every `reset()` would otherwise encode them again.
        if let kept = Self.encoded.withLock({ $0[self] }) { return kept }
        let data = try freshImageData()
        Self.encoded.withLock { $0[self] = data }
        return data
    }

    /// Each hazard's bytes once encoded, for the life of the process.
    private static let encoded = LockedState<[Hazard: Data]>([:])

    /// The bytes encoded now, bypassing the kept ones: what the determinism tests compare.
    package func freshImageData() throws -> Data {
        if let orientation {
            return try Self.exifJPEG(orientation: orientation, thumbnailOrientation: nil)
        }
        switch self {
        case .orientationInIFD1: return try Self.exifJPEG(orientation: nil, thumbnailOrientation: 6)
        case .cmyk: return try Self.cmykJPEG(store: .cmyk)
        case .ycck: return try Self.cmykJPEG(store: .ycck)
        case .displayP3: return try Self.profileJPEG(.displayP3)
        case .adobeRGB: return try Self.profileJPEG(.adobeRGB)
        case .png16Bit:
            let ramp = HazardPictures.deepRamp
            let rows = ramp.samples.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
            return try HazardCodec.png(rows, layout: PNGLayout(width: ramp.width, height: ramp.height, bitDepth: 16, colourType: 6))
        case .pngGreyAlpha:
            let ramp = HazardPictures.greyAlpha
            return try HazardCodec.png(ramp.samples, layout: PNGLayout(width: ramp.width, height: ramp.height, bitDepth: 8, colourType: 4))
        case .pngIndexedTransparency:
            var rows = [UInt8]()
            for y in 0..<32 {
                for x in stride(from: 0, to: 64, by: 2) {
                    rows.append(UInt8(HazardPictures.paletteIndex(x: x, y: y) << 4 | HazardPictures.paletteIndex(x: x + 1, y: y)))
                }
            }
            let layout = PNGLayout(
                width: 64, height: 32, bitDepth: 4, colourType: 3,
                palette: HazardPictures.palette.map(\.rgb), transparency: HazardPictures.palette.map(\.alpha)
            )
            return try HazardCodec.png(rows, layout: layout)
        case .pngInterlaced:
            let figure = HazardPictures.figure
            return try HazardCodec.png(figure.pixels, layout: PNGLayout(width: figure.width, height: figure.height, bitDepth: 8, colourType: 6, interlaced: true))
        case .bombPNG: return HazardBombs.png
        case .bombGIF: return HazardBombs.gif
        case .bombJPEG:
            let small = HazardPictures.draw(width: 16, height: 16, background: [128, 128, 128]) { _, _ in nil }
            return HazardBombs.jpeg(from: try HazardCodec.jpeg(small.pixels, width: 16, height: 16, store: .yCbCr, quality: 50, jfif: true))
        case .bombWebP:
            let small = HazardPictures.draw(width: 16, height: 16, background: [128, 128, 128]) { _, _ in nil }
            return try HazardBombs.webP(wrapping: try HazardCodec.webPLossless(small))
        case .animationZeroDelay:
            return try HazardCodec.gif(Self.countingFrames(4), delays: [0, 1, 0, 1], looping: true)
        case .animationNoLoop:
            return try HazardCodec.gif(Self.countingFrames(4), delays: [50, 50, 50, 50], looping: false)
        case .animationHeavyGIF:
            let frames = HazardAnimations.heavyFrames().map { GIFFrame(image: $0.image, left: $0.left, top: $0.top, delay: 4) }
            return try HazardCodec.gif(placed: frames, width: 1000, height: 1000, loopCount: 0)
        case .animationHeavyWebP:
            let frames = HazardAnimations.heavyFrames().map {
                HazardAnimations.Frame(image: $0.image, x: $0.left, y: $0.top, milliseconds: 40, blend: false, dispose: false)
            }
            return try HazardAnimations.webP(width: 1000, height: 1000, frames: frames, loopCount: 0)
        case .animationPartialFrames:
            return try HazardAnimations.webP(width: 96, height: 64, frames: HazardAnimations.partialFrames, loopCount: 1)
        case .animationPartialFramesGIF:
            // No loop extension: played once, ending on the last frame.
            return try HazardCodec.gif(placed: HazardAnimations.partialGIFFrames, width: 96, height: 64, loopCount: nil)
        case .metadataBeforePixels:
            return HazardBombs.metadataFirst(try ImageCodecs.encode(HazardPictures.figure, as: .png))
        case .extensionMismatch:
            return try ImageCodecs.encode(HazardPictures.figure, as: .webpLossless)
        default:
            return try ImageCodecs.encode(HazardPictures.figure, as: .png)
        }
    }

    /// The orientation figure (the expected image of most hazards) encoded as `format`.
    package static func figure(encodedAs format: ImageFormat) throws -> Data {
        try ImageCodecs.encode(HazardPictures.figure, as: format)
    }

    /// The figure stored for `orientation`, with EXIF in APP1 and no JFIF segment, as cameras
    /// write it.
    private static func exifJPEG(orientation: Int?, thumbnailOrientation: Int?) throws -> Data {
        let stored = HazardPictures.stored(HazardPictures.figure, orientation: orientation ?? 1)
        let exif = ExifSegment.payload(orientation: orientation, thumbnailOrientation: thumbnailOrientation)
        return try HazardCodec.jpeg(stored.pixels, width: stored.width, height: stored.height, store: .yCbCr, jfif: false, markers: [(0xE1, exif)])
    }

    /// The ink bars, inverted (255 is no ink) as Photoshop stores Adobe CMYK.
    private static func cmykJPEG(store: HazardCodec.JPEGStore) throws -> Data {
        var pixels = [UInt8]()
        for _ in 0..<32 {
            for ink in HazardPictures.inks {
                for _ in 0..<16 { pixels += ink.map { 255 - $0 } }
            }
        }
        return try HazardCodec.jpeg(pixels, width: HazardPictures.inks.count * 16, height: 32, store: store, jfif: false)
    }

    /// The sRGB bars as this profile's numbers, with the profile in an ICC_PROFILE APP2.
    private static func profileJPEG(_ profile: ICCProfile) throws -> Data {
        let stored = HazardPictures.bars(HazardPictures.profileColours.map(profile.values(ofSRGB:)))
        let icc = Array("ICC_PROFILE".utf8) + [0, 1, 1] + [UInt8](profile.data)
        return try HazardCodec.jpeg(stored.pixels, width: stored.width, height: stored.height, store: .yCbCr, jfif: true, markers: [(0xE2, icc)])
    }

    /// `count` frames of the figure, each with a bar at the bottom as long as its number, so
    /// that which frame a client shows is visible.
    static func countingFrames(_ count: Int) -> [RGBAImage] {
        (1...count).map { number in
            HazardPictures.draw(width: 96, height: 64, background: [255, 255, 255]) { x, y in
                if y >= 56 && x < number * 24 { return [255, 140, 0] }
                let index = (y * 96 + x) * 4
                return Array(HazardPictures.figure.pixels[index..<index + 3])
            }
        }
    }
}
