import Foundation

/// The building blocks of the hazards as keys of their own (`image: { orientation: 6 }` and
/// the like), so a suite can make its own variants of any image: each says which formats can
/// carry it, and ``refusals(for:)`` names the others.
package struct ImageVariant: Sendable, Equatable {
    /// `colour:`: how the file stores its colour: CMYK or YCCK (JPEG only), or an ICC profile.
    package enum Colour: String, Sendable, CaseIterable {
        case cmyk, ycck
        case displayP3 = "display-p3"
        case adobeRGB = "adobe-rgb"
    }

    /// `palette:`: an indexed PNG of at most `colours` entries, with tRNS when `transparent`.
    package struct Palette: Sendable, Equatable {
        package var colours: Int
        package var transparent: Bool
        package init(colours: Int, transparent: Bool) {
            self.colours = colours
            self.transparent = transparent
        }
    }

    package var orientation: Int?
    package var colour: Colour?
    package var depth: Int?
    package var palette: Palette?
    package var interlaced: Bool?
    package var declaredSize: (width: Int, height: Int)?
    /// `loop:`: `nil` for the key's absence, `.some(nil)` for `none` (played once), else the
    /// format's own count: GIF's NETSCAPE2.0 count (repeats after the first play), WebP's ANIM
    /// loop count (plays in all); 0 is for ever in both.
    package var loop: Int??
    /// `metadata:`: bytes of metadata: ahead of the pixel data in PNG (tEXt), JPEG (COM) and GIF
    /// (a comment extension); in WebP an XMP chunk, which its container places after the image.
    package var metadata: Int?

    package init() {}

    package var isEmpty: Bool { self == ImageVariant() }

    package static func == (lhs: ImageVariant, rhs: ImageVariant) -> Bool {
        lhs.orientation == rhs.orientation && lhs.colour == rhs.colour && lhs.depth == rhs.depth && lhs.palette == rhs.palette
            && lhs.interlaced == rhs.interlaced && lhs.declaredSize?.width == rhs.declaredSize?.width
            && lhs.declaredSize?.height == rhs.declaredSize?.height && lhs.loop == rhs.loop && lhs.metadata == rhs.metadata
    }

    /// The formats each key can be written in (`colour: cmyk` and `ycck` in JPEG only).
    package static let carriers: [String: [ImageKind]] = [
        "orientation": [.jpeg, .png, .webp], "colour": [.jpeg, .png, .webp], "depth": [.png], "palette": [.png],
        "interlaced": [.png], "declaredSize": [.png, .jpeg, .gif, .webp], "loop": [.gif, .webp], "metadata": [.png, .jpeg, .gif, .webp],
    ]

    /// The largest side and area of a WebP canvas (24 bits a side, libwebp's area limit).
    static let webPCanvasLimit = (side: 1 << 24, area: 1 << 32)

    /// The keys given, by name.
    package var keys: [String] {
        var keys: [String] = []
        if orientation != nil { keys.append("orientation") }
        if colour != nil { keys.append("colour") }
        if depth != nil { keys.append("depth") }
        if palette != nil { keys.append("palette") }
        if interlaced != nil { keys.append("interlaced") }
        if declaredSize != nil { keys.append("declaredSize") }
        if loop != nil { keys.append("loop") }
        if metadata != nil { keys.append("metadata") }
        return keys
    }

    /// Each key `kind` cannot carry, with what the format allows instead.
    package func refusals(for kind: ImageKind) -> [(key: String, message: String)] {
        var refusals: [(String, String)] = []
        for key in keys where !(Self.carriers[key] ?? []).contains(kind) {
            let carriers = (Self.carriers[key] ?? []).map(\.name).joined(separator: ", ")
            var message = "\(kind.name) cannot carry '\(key)'; it is written for \(carriers) only"
            if key == "interlaced", kind == .jpeg { message += " (for JPEG, use as: jpeg-progressive)" }
            refusals.append((key, message))
        }
        if let colour, colour == .cmyk || colour == .ycck, kind != .jpeg, (Self.carriers["colour"] ?? []).contains(kind) {
            refusals.append(("colour", "\(kind.name) cannot carry 'colour: \(colour.rawValue)'; it is written for JPEG only (display-p3 and adobe-rgb for JPEG, PNG, WebP)"))
        }
        if let declaredSize, kind == .jpeg || kind == .gif, max(declaredSize.width, declaredSize.height) > 65_535 {
            refusals.append(("declaredSize", "\(kind.name) stores each side in 16 bits: declaredSize allows at most 65535 x 65535 there"))
        }
        if let declaredSize, kind == .webp,
            max(declaredSize.width, declaredSize.height) > Self.webPCanvasLimit.side
                || declaredSize.width.multipliedReportingOverflow(by: declaredSize.height).partialValue >= Self.webPCanvasLimit.area
        {
            refusals.append(("declaredSize", "WebP stores each side of its canvas in 24 bits: declaredSize allows at most 16777216 x 16777216 there, and fewer than 4294967296 pixels in all"))
        }
        if depth == 16, palette != nil { refusals.append(("palette", "a 16-bit PNG cannot be indexed; give depth: 16 or palette, not both")) }
        return refusals
    }

    /// `frames` (one for a still image) encoded as `kind` with every key applied; `quality`
    /// applies to JPEG and to WebP unless `lossless`.
    /// - Throws: ``ImageError``: a refusal, or this build cannot encode the format.
    package func encode(_ frames: [RGBAImage], frameMilliseconds: Int, as kind: ImageKind, quality: Int, lossless: Bool = false) throws -> Data {
        if let refusal = refusals(for: kind).first { throw ImageError(.invalidArgument, refusal.message) }
        var data: Data
        switch kind {
        case .jpeg: data = try jpeg(frames[0], quality: quality)
        case .png: data = try png(stored(frames[0]))
        case .gif:
            let comment = metadata.map { String(repeating: "x", count: $0) }
            data = try HazardCodec.gif(frames, delays: Array(repeating: frameMilliseconds / 10, count: frames.count), loopCount: loop ?? 0, comment: comment)
        case .webp:
            return try webP(frames, frameMilliseconds: frameMilliseconds, lossless: lossless, quality: quality)
        default:
            throw ImageError(.invalidArgument, "building-block keys are written for PNG, JPEG, GIF and WebP; found \(kind.name)")
        }
        if let declaredSize { data = HazardBombs.declaring(declaredSize, in: data, kind: kind) }
        return data
    }

    /// The ICC profile `colour` names, if it names one.
    var iccProfile: ICCProfile? {
        switch colour {
        case .displayP3?: .displayP3
        case .adobeRGB?: .adobeRGB
        default: nil
        }
    }

    /// `orientation`'s EXIF as a bare TIFF structure, as PNG's eXIf and WebP's EXIF chunks hold it.
    var exifTIFF: [UInt8] {
        guard let orientation else { return [] }
        // Without JPEG's "Exif\0\0" prefix, which belongs to the APP1 segment.
        return Array(ExifSegment.payload(orientation: orientation).dropFirst(6))
    }

    /// `image` as the file stores it: turned so that applying `orientation` gives it back, and
    /// as the profile's numbers where `colour` embeds a profile (alpha kept).
    func stored(_ image: RGBAImage) -> RGBAImage {
        let stored = HazardPictures.stored(image, orientation: orientation ?? 1)
        guard let profile = iccProfile else { return stored }
        var converted = [UInt8]()
        converted.reserveCapacity(stored.pixels.count)
        var cache: [UInt32: [UInt8]] = [:]
        let pixels = stored.pixels
        for index in stride(from: 0, to: pixels.count, by: 4) {
            let key = UInt32(pixels[index]) << 16 | UInt32(pixels[index + 1]) << 8 | UInt32(pixels[index + 2])
            let values = cache[key] ?? profile.values(ofSRGB: Array(pixels[index..<index + 3]))
            cache[key] = values
            converted += values + [pixels[index + 3]]
        }
        return RGBAImage(unchecked: stored.width, stored.height, converted)
    }

    private func jpeg(_ image: RGBAImage, quality: Int) throws -> Data {
        var markers: [(code: UInt8, payload: [UInt8])] = []
        if let orientation { markers.append((0xE1, ExifSegment.payload(orientation: orientation))) }
        var store = HazardCodec.JPEGStore.yCbCr
        let written = stored(image)
        var pixels = written.pixels
        switch colour {
        case .cmyk?, .ycck?:
            store = colour == .cmyk ? .cmyk : .ycck
            pixels = Self.invertedCMYK(written.pixels)
        case .displayP3?, .adobeRGB?:
            markers.append((0xE2, Array("ICC_PROFILE".utf8) + [0, 1, 1] + [UInt8](iccProfile?.data ?? Data())))
        case nil:
            break
        }
        if let metadata { markers += Self.comments(metadata) }
        return try HazardCodec.jpeg(pixels, width: written.width, height: written.height, store: store, quality: quality, jfif: orientation == nil, markers: markers)
    }

    /// RGB to the naive CMYK every decoder inverts (k = 255 - max), stored inverted as Adobe does.
    private static func invertedCMYK(_ rgba: [UInt8]) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(rgba.count)
        for index in stride(from: 0, to: rgba.count, by: 4) {
            let (r, g, b) = (Int(rgba[index]), Int(rgba[index + 1]), Int(rgba[index + 2]))
            let white = max(r, g, b)
            guard white > 0 else { out += [255, 255, 255, 0]; continue }
            // Inverted: 255 - ink. With k = 255 - white, 255 - c = r * 255 / white.
            out += [UInt8(r * 255 / white), UInt8(g * 255 / white), UInt8(b * 255 / white), UInt8(white)]
        }
        return out
    }

    /// COM segments of `total` bytes in all, at most 65,533 each.
    private static func comments(_ total: Int) -> [(code: UInt8, payload: [UInt8])] {
        var left = total
        var markers: [(code: UInt8, payload: [UInt8])] = []
        while left > 0 {
            let count = min(left, 65_533)
            markers.append((0xFE, [UInt8](repeating: UInt8(ascii: "x"), count: count)))
            left -= count
        }
        return markers
    }

    /// `image`, already ``stored(_:)``, as a PNG with the profile in iCCP and the EXIF in eXIf.
    private func png(_ image: RGBAImage) throws -> Data {
        var data: Data
        var layout = PNGLayout(width: image.width, height: image.height, bitDepth: 8, colourType: 6, interlaced: interlaced ?? false)
        layout.iccProfile = iccProfile.map { [UInt8]($0.data) } ?? []
        layout.exif = exifTIFF
        if depth == 16 {
            let rows = image.pixels.flatMap { [$0, $0] }   // v * 257, big-endian
            layout.bitDepth = 16
            data = try HazardCodec.png(rows, layout: layout)
        } else if let palette {
            data = try Self.indexed(image, palette, layout: layout)
        } else {
            data = try HazardCodec.png(image.pixels, layout: layout)
        }
        if let metadata { data = HazardBombs.metadataFirst(data, bytes: metadata) }
        return data
    }

    /// The `palette.colours` most frequent colours (RGBA, or RGB without transparency), every
    /// other pixel mapped to the nearest; ties broken by the colour's value, so the bytes are
    /// the same every run.
    private static func indexed(_ image: RGBAImage, _ palette: Palette, layout base: PNGLayout) throws -> Data {
        var counts: [UInt32: Int] = [:]
        func key(_ index: Int) -> UInt32 {
            let p = image.pixels
            let alpha: UInt32 = palette.transparent ? UInt32(p[index + 3]) : 255
            return UInt32(p[index]) << 24 | UInt32(p[index + 1]) << 16 | UInt32(p[index + 2]) << 8 | alpha
        }
        for index in stride(from: 0, to: image.pixels.count, by: 4) { counts[key(index), default: 0] += 1 }
        let chosen = counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.prefix(palette.colours).map(\.key)
        var lookup: [UInt32: Int] = [:]
        for (index, colour) in chosen.enumerated() { lookup[colour] = index }
        func nearest(_ colour: UInt32) -> Int {
            if let index = lookup[colour] { return index }
            let best = chosen.indices.min { a, b in distance(chosen[a], colour) < distance(chosen[b], colour) } ?? 0
            lookup[colour] = best
            return best
        }
        func distance(_ a: UInt32, _ b: UInt32) -> Int {
            (0..<4).reduce(0) { sum, shift in
                let d = Int((a >> (8 * UInt32(shift))) & 0xFF) - Int((b >> (8 * UInt32(shift))) & 0xFF)
                return sum + d * d
            }
        }
        let depth = chosen.count <= 2 ? 1 : chosen.count <= 4 ? 2 : chosen.count <= 16 ? 4 : 8
        let perByte = 8 / depth
        var rows = [UInt8]()
        for y in 0..<image.height {
            var byte = 0, filled = 0
            for x in 0..<image.width {
                byte = byte << depth | nearest(key((y * image.width + x) * 4))
                filled += 1
                if filled == perByte { rows.append(UInt8(byte)); byte = 0; filled = 0 }
            }
            if filled > 0 { rows.append(UInt8(byte << (depth * (perByte - filled)))) }
        }
        var layout = base
        layout.bitDepth = depth
        layout.colourType = 3
        layout.palette = chosen.map { [UInt8($0 >> 24), UInt8(($0 >> 16) & 0xFF), UInt8(($0 >> 8) & 0xFF)] }
        layout.transparency = palette.transparent ? chosen.map { UInt8($0 & 0xFF) } : []
        return try HazardCodec.png(rows, layout: layout)
    }
}
