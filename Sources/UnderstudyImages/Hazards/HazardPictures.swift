/// The pictures the pixel hazards carry, drawn on a 16-pixel grid so that JPEG's 8x8 blocks
/// never straddle two colours and a correct decode comes back within a few levels.
enum HazardPictures {
    /// 96 x 64, asymmetric under every mirror and turn: a red square top left, a small blue one
    /// top right, a green bar bottom left and a black bar in the middle. Each of the eight EXIF
    /// poses puts the red square in a different corner or changes the size, so a client that
    /// applies the wrong one (or none) shows something else.
    static let figure: RGBAImage = draw(width: 96, height: 64, background: [255, 255, 255]) { x, y in
        switch (x, y) {
        case (0..<32, 0..<32): [220, 20, 20]
        case (80..<96, 0..<16): [20, 40, 220]
        case (0..<32, 48..<64): [20, 170, 40]
        case (32..<80, 16..<32): [0, 0, 0]
        default: nil
        }
    }

    /// The sRGB colours of the colour-profile hazards, one 16-pixel bar each: the primaries and
    /// secondaries, which Display P3 and Adobe RGB store as visibly different numbers.
    static let profileColours: [[UInt8]] = [
        [255, 0, 0], [0, 255, 0], [0, 0, 255], [0, 255, 255], [255, 0, 255], [255, 255, 0],
    ]

    /// Six bars of ``profileColours``, 96 x 32: what a client that honours the profile shows.
    static let profileBars: RGBAImage = bars(profileColours)

    /// The inks of the CMYK hazards (0 = no ink, 255 = full), one bar each: cyan, magenta,
    /// yellow, red (magenta and yellow), black, and a brown mixing all four.
    static let inks: [[UInt8]] = [
        [255, 0, 0, 0], [0, 255, 0, 0], [0, 0, 255, 0], [0, 255, 255, 0], [0, 0, 0, 255], [0, 128, 255, 64],
    ]

    /// What each ink shows on screen: the naive conversion every decoder applies to Adobe CMYK
    /// (libjpeg's djpeg, Pillow, browsers without a CMYK profile), `(255 - c) * (255 - k) / 255`.
    static let inkBars: RGBAImage = bars(inks.map { ink in
        (0..<3).map { channel in UInt8((Int(255 - ink[channel]) * Int(255 - ink[3]) + 127) / 255) }
    })

    /// A 64 x 64 RGBA ramp in 16-bit samples, PNG's big-endian order: red across, green down,
    /// blue constant, and a translucent band (alpha 50 %) in the bottom quarter. Every sample
    /// uses the low byte, so a client that reads only the high byte is off by up to one level.
    static let deepRamp: (width: Int, height: Int, samples: [UInt16]) = {
        let side = 64
        var samples = [UInt16]()
        samples.reserveCapacity(side * side * 4)
        for y in 0..<side {
            for x in 0..<side {
                samples += [UInt16(x * 65535 / (side - 1)), UInt16(y * 65535 / (side - 1)), 0x8123, y >= 48 ? 0x8000 : 0xFFFF]
            }
        }
        return (side, side, samples)
    }()

    /// ``deepRamp`` rounded to 8 bits as libpng's `png_set_scale_16` does: `(v * 255 + 32767) / 65535`.
    static let deepRampExpected: RGBAImage = {
        let ramp = deepRamp
        return RGBAImage(unchecked: ramp.width, ramp.height, ramp.samples.map { UInt8((Int($0) * 255 + 32767) / 65535) })
    }()

    /// A 64 x 32 grey ramp across with an alpha ramp down, as (grey, alpha) pairs.
    static let greyAlpha: (width: Int, height: Int, samples: [UInt8]) = {
        var samples = [UInt8]()
        for y in 0..<32 {
            for x in 0..<64 { samples += [UInt8(x * 4), UInt8(255 - y * 8)] }
        }
        return (64, 32, samples)
    }()

    /// ``greyAlpha`` as RGBA.
    static let greyAlphaExpected: RGBAImage = {
        let ramp = greyAlpha
        var pixels = [UInt8]()
        for index in stride(from: 0, to: ramp.samples.count, by: 2) {
            let grey = ramp.samples[index]
            pixels += [grey, grey, grey, ramp.samples[index + 1]]
        }
        return RGBAImage(unchecked: ramp.width, ramp.height, pixels)
    }()

    /// Sixteen colours and their alphas: entries 0 and 5 fully transparent, 10 and 15 half.
    static let palette: [(rgb: [UInt8], alpha: UInt8)] = (0..<16).map { index in
        let rgb = [UInt8(index * 17), UInt8(255 - index * 17), UInt8((index * 85) % 256)]
        let alpha: UInt8 = index == 0 || index == 5 ? 0 : (index == 10 || index == 15 ? 128 : 255)
        return (rgb, alpha)
    }

    /// The palette index of each pixel of the 64 x 32 indexed hazard: 4 x 8 pixel cells.
    static func paletteIndex(x: Int, y: Int) -> Int { (x / 4 + y / 8 * 3) % 16 }

    /// The indexed hazard as RGBA.
    static let paletteExpected: RGBAImage = draw(width: 64, height: 32, background: [0, 0, 0]) { x, y in
        let entry = palette[paletteIndex(x: x, y: y)]
        return entry.rgb + [entry.alpha]
    }

    /// `image` as a viewer shows it after applying EXIF `orientation` (1...8), the pose
    /// TIFF 6.0 and EXIF 2.3 define (Pillow's `ImageOps.exif_transpose`).
    static func applying(orientation: Int, to image: RGBAImage) -> RGBAImage {
        let (w, h) = (image.width, image.height)
        let turned = orientation >= 5
        let (outW, outH) = turned ? (h, w) : (w, h)
        var pixels = [UInt8](repeating: 0, count: outW * outH * 4)
        for y in 0..<outH {
            for x in 0..<outW {
                let (sx, sy): (Int, Int) = switch orientation {
                case 2: (w - 1 - x, y)
                case 3: (w - 1 - x, h - 1 - y)
                case 4: (x, h - 1 - y)
                case 5: (y, x)
                case 6: (y, h - 1 - x)
                case 7: (w - 1 - y, h - 1 - x)
                case 8: (w - 1 - y, x)
                default: (x, y)
                }
                let from = (sy * w + sx) * 4
                let to = (y * outW + x) * 4
                pixels[to..<to + 4] = image.pixels[from..<from + 4]
            }
        }
        return RGBAImage(unchecked: outW, outH, pixels)
    }

    /// The pixels to store under EXIF `orientation` so that applying it shows `image`: the
    /// inverse pose (6 and 8 undo each other; the others undo themselves).
    static func stored(_ image: RGBAImage, orientation: Int) -> RGBAImage {
        let inverse = orientation == 6 ? 8 : orientation == 8 ? 6 : orientation
        return applying(orientation: inverse, to: image)
    }

    /// 16-pixel bars of `colours` (RGB), 32 high.
    static func bars(_ colours: [[UInt8]]) -> RGBAImage {
        draw(width: colours.count * 16, height: 32, background: [0, 0, 0]) { x, _ in colours[x / 16] }
    }

    /// An opaque image of `background` with what `paint` gives (RGB or RGBA) where it gives one.
    static func draw(width: Int, height: Int, background: [UInt8], _ paint: (Int, Int) -> [UInt8]?) -> RGBAImage {
        var pixels = [UInt8]()
        pixels.reserveCapacity(width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let colour = paint(x, y) ?? background
                pixels += colour.count == 4 ? colour : colour + [255]
            }
        }
        return RGBAImage(unchecked: width, height, pixels)
    }
}
