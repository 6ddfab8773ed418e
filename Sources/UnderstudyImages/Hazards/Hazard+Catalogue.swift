extension Hazard {
    /// The group the hazard belongs to.
    public var group: HazardGroup {
        switch self {
        case .orientation1, .orientation2, .orientation3, .orientation4, .orientation5, .orientation6,
            .orientation7, .orientation8, .orientationInIFD1, .cmyk, .ycck, .displayP3, .adobeRGB,
            .png16Bit, .pngGreyAlpha, .pngIndexedTransparency, .pngInterlaced:
            .pixels
        case .bombPNG, .bombJPEG, .bombGIF, .bombWebP, .animationHeavyGIF, .animationHeavyWebP,
            .animationZeroDelay, .animationNoLoop, .animationPartialFrames, .animationPartialFramesGIF, .metadataBeforePixels:
            .memory
        case .contentTypeMissing, .contentTypeOctetStream, .contentTypeWrong, .extensionMismatch, .html200,
            .captivePortal, .gzipEncoded, .gzipUnlabelled, .lengthLongerThanBody, .empty200, .negotiatedWithoutVary:
            .headers
        case .changesNoCache, .changesMaxAge0, .changesNoStore, .changesMustRevalidate, .changesPragmaNoCache,
            .changesExpired, .notModifiedWithoutValidator, .errorAfterImage, .truncatedThenWhole:
            .cache
        }
    }

    /// The EXIF orientation (1...8) an `orientation-n` hazard carries, else `nil`.
    public var orientation: Int? {
        switch self {
        case .orientation1: 1
        case .orientation2: 2
        case .orientation3: 3
        case .orientation4: 4
        case .orientation5: 5
        case .orientation6: 6
        case .orientation7: 7
        case .orientation8: 8
        default: nil
        }
    }

    /// What the hazard is, in one line.
    public var summary: String {
        if let orientation {
            return "JPEG whose EXIF Orientation (IFD0) is \(orientation); the pixels are stored \(Self.poses[orientation - 1])"
        }
        switch self {
        case .orientationInIFD1: return "JPEG with Orientation 6 only in IFD1, the thumbnail's directory; the pixels are stored as shown"
        case .cmyk: return "CMYK JPEG with Adobe's APP14 marker, the inks stored inverted as Photoshop writes them"
        case .ycck: return "YCCK JPEG with Adobe's APP14 marker (transform 2), as Photoshop writes it"
        case .displayP3: return "JPEG in Display P3 with its ICC profile embedded; saturated colours"
        case .adobeRGB: return "JPEG in Adobe RGB (1998) with its ICC profile embedded; saturated colours"
        case .png16Bit: return "PNG with 16 bits a sample (RGBA), a smooth gradient"
        case .pngGreyAlpha: return "PNG of colour type 4, grey and alpha"
        case .pngIndexedTransparency: return "indexed PNG of 16 colours, 4 bits a pixel, with a tRNS chunk"
        case .pngInterlaced: return "Adam7-interlaced PNG"
        case .bombPNG: return "PNG declaring 30000x30000 pixels in a few KB; the data ends early"
        case .bombJPEG: return "JPEG declaring 30000x30000 pixels in a few KB; the data ends early"
        case .bombGIF: return "GIF: a 1x1 frame on a 30000x30000 screen"
        case .bombWebP: return "animated WebP: a 16x16 frame on a 30000x30000 canvas"
        case .animationHeavyGIF: return "GIF of 300 frames on a 1000x1000 canvas"
        case .animationHeavyWebP: return "animated WebP of 300 frames on a 1000x1000 canvas"
        case .animationZeroDelay: return "GIF whose frame delays are 0 and 10 ms"
        case .animationNoLoop: return "GIF with no loop extension"
        case .animationPartialFrames: return "animation whose frames cover part of the canvas, with each disposal and blend mode"
        case .animationPartialFramesGIF: return "GIF whose frames cover part of the screen, with each disposal method (none, background, previous)"
        case .metadataBeforePixels: return "PNG with 256 KB of metadata ahead of the pixel data"
        case .contentTypeMissing: return "PNG served with no Content-Type"
        case .contentTypeOctetStream: return "PNG served as application/octet-stream"
        case .contentTypeWrong: return "PNG bytes labelled image/jpeg"
        case .extensionMismatch: return "WebP bytes at a .jpg URL"
        case .html200: return "a 200 HTML page at an image URL"
        case .captivePortal: return "a 302 to an HTML login page"
        case .gzipEncoded: return "PNG bytes with Content-Encoding: gzip"
        case .gzipUnlabelled: return "gzipped PNG bytes under image/png, without Content-Encoding"
        case .lengthLongerThanBody: return "Content-Length longer than the body sent"
        case .empty200: return "a 200 with an empty body"
        case .negotiatedWithoutVary: return "WebP or PNG chosen by Accept, with no Vary: Accept"
        case .changesNoCache: return "a new image each request (its number in the pixels) under Cache-Control: no-cache"
        case .changesMaxAge0: return "a new image each request under Cache-Control: max-age=0"
        case .changesNoStore: return "a new image each request under Cache-Control: no-store"
        case .changesMustRevalidate: return "a new image each request under Cache-Control: max-age=0, must-revalidate"
        case .changesPragmaNoCache: return "a new image each request under Pragma: no-cache alone"
        case .changesExpired: return "a new image each request under an Expires in the past"
        case .notModifiedWithoutValidator: return "a 304 to a request that sent no validator"
        case .errorAfterImage: return "an image, then a 503 HTML page"
        case .truncatedThenWhole: return "a body cut short, then the whole one"
        default: return ""
        }
    }

    /// The behaviour a correct client shows, in a sentence.
    public var correctBehaviour: String {
        if let orientation {
            return orientation == 1
                ? "Shows the figure upright, as stored."
                : "Applies the EXIF Orientation \(orientation) and shows the figure upright, not \(Self.poses[orientation - 1])."
        }
        switch self {
        case .orientationInIFD1: return "Ignores the thumbnail's orientation and shows the figure upright, as stored."
        case .cmyk, .ycck: return "Reads the Adobe marker, undoes the inversion and shows cyan, magenta, yellow, red and black bars."
        case .displayP3, .adobeRGB: return "Converts through the embedded profile and shows pure sRGB red, green, blue, cyan, magenta and yellow bars, not duller ones."
        case .png16Bit: return "Shows the gradient, rounded to 8 bits, with its translucent band."
        case .pngGreyAlpha: return "Shows the grey ramp with its alpha ramp."
        case .pngIndexedTransparency: return "Applies tRNS: the transparent palette entries show the background through."
        case .pngInterlaced: return "Shows the same image as the non-interlaced one."
        case .bombPNG, .bombJPEG, .bombGIF, .bombWebP: return "Refuses the image by its declared size before allocating, and does not crash."
        case .animationHeavyGIF, .animationHeavyWebP: return "Plays or refuses the animation without holding every decoded frame in memory."
        case .animationZeroDelay: return "Clamps the 0 and 10 ms delays (browsers use 100 ms) rather than spinning."
        case .animationNoLoop: return "Plays the animation once and stops on the last frame."
        case .animationPartialFrames: return "Composites every frame with its disposal and blend mode; shows the last composited frame."
        case .animationPartialFramesGIF: return "Composites every frame with its disposal (background clears to transparent, previous restores); shows the last composited frame."
        case .metadataBeforePixels: return "Skips the metadata and shows the image."
        case .contentTypeMissing, .contentTypeOctetStream, .contentTypeWrong: return "Sniffs the bytes and shows the PNG."
        case .extensionMismatch: return "Decodes by the bytes, not the URL's extension, and shows the WebP."
        case .html200: return "Reports a decode error and caches nothing."
        case .captivePortal: return "Reports an error (an HTML page, not an image) and caches nothing."
        case .gzipEncoded: return "Decodes the gzip content coding and shows the PNG."
        case .gzipUnlabelled: return "Reports a decode error and caches nothing."
        case .lengthLongerThanBody: return "Reports a truncated response and caches nothing."
        case .empty200: return "Reports an empty body as an error and caches nothing."
        case .negotiatedWithoutVary: return "Does not serve the cached answer to one Accept for another."
        case .changesNoCache, .changesMaxAge0, .changesMustRevalidate, .changesPragmaNoCache, .changesExpired:
            return "Revalidates on every load and shows the newest request number."
        case .changesNoStore: return "Stores nothing and shows the newest request number on every load."
        case .notModifiedWithoutValidator: return "Treats the unexpected 304 as an error, not as an empty image."
        case .errorAfterImage: return "Keeps showing the image it had after the 503."
        case .truncatedThenWhole: return "Caches nothing cut short and shows the whole image on the second load."
        default: return ""
        }
    }

    /// Where the hazard is served under a mount point: `<mount>/<name>`, with a `.jpg` for
    /// `extension-mismatch`, whose point is its URL.
    /// - Parameter mount: The prefix, such as `/hazards` (a trailing `/` is ignored).
    public func path(under mount: String = "/hazards") -> String {
        let base = mount.hasSuffix("/") ? String(mount.dropLast()) : mount
        return self == .extensionMismatch ? "\(base)/\(name).jpg" : "\(base)/\(name)"
    }

    /// Whether a correct client's outcome is pixels, so ``expected`` gives them.
    public var hasExpectedImage: Bool {
        switch group {
        case .pixels: true
        case .memory: [.animationPartialFrames, .animationPartialFramesGIF, .metadataBeforePixels].contains(self)
        case .headers:
            [.contentTypeMissing, .contentTypeOctetStream, .contentTypeWrong, .extensionMismatch, .gzipEncoded, .negotiatedWithoutVary].contains(self)
        case .cache: false
        }
    }

    /// How the stored pixels of orientation n are posed, for the summaries.
    private static let poses = [
        "as shown", "mirrored left to right", "upside down", "mirrored top to bottom",
        "transposed", "a quarter turn anticlockwise", "transversed", "a quarter turn clockwise",
    ]
}
