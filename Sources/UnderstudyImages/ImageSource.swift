import Foundation

/// Where an image comes from.
///
/// ```swift
/// .file(URL(fileURLWithPath: "Stubs/images/cat.webp"))
/// .generated(width: 640, height: 480, pattern: .checkerboard)
/// .animated(width: 64, height: 64, pattern: .checkerboard, frames: 8, frameDuration: .milliseconds(100))
/// ```
public enum ImageSource: Sendable, Hashable {
    /// An image file, PNG, WebP or JPEG to be transcoded (any bytes to be served as they are).
    case file(URL)
    /// Image bytes in memory.
    case data(Data)
    /// An image drawn on demand, up to the pixel limit.
    case generated(width: Int, height: Int, pattern: ImagePattern)
    /// A looping animation drawn on demand: `frames` frames of the pattern, each shown for
    /// `frameDuration` (whole milliseconds), with a band of inverted colour, `1/frames` of the
    /// width, moving from the left edge to the right one frame at a time (see
    /// ``ImageGenerator/frames(width:height:pattern:count:pixelLimit:)``). Served as WebP it is
    /// an animated WebP; as PNG or JPEG, its first frame.
    case animated(width: Int, height: Int, pattern: ImagePattern, frames: Int, frameDuration: Duration)

    /// The source's own bytes: the file's contents, the data, for a generated image its PNG
    /// encoding and for an animation its lossless WebP encoding (a generated image has no other
    /// original form).
    /// - Parameter pixelLimit: The most pixels a generated image may have.
    /// - Throws: ``ImageError``: `.unreadableFile`, or a generation error.
    public func originalData(pixelLimit: Int = RGBAImage.defaultPixelLimit) throws -> Data {
        switch self {
        case .file(let url):
            return try Self.read(url)
        case .data(let data):
            return data
        case .generated(let width, let height, let pattern):
            return try ImageGenerator.generate(width: width, height: height, pattern: pattern, pixelLimit: pixelLimit).pngData()
        case .animated(let width, let height, let pattern, let frames, let frameDuration):
            let images = try ImageGenerator.frames(width: width, height: height, pattern: pattern, count: frames, pixelLimit: pixelLimit)
            return try ImageCodecs.encodeAnimation(images, frameDuration: frameDuration, as: .webpLossless)
        }
    }

    /// Whether the image is drawn rather than read.
    package var isGenerated: Bool {
        switch self {
        case .file, .data: false
        case .generated, .animated: true
        }
    }

    static func read(_ url: URL) throws -> Data {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw ImageError(.unreadableFile, "cannot read image file \(url.path): no such file")
        }
        guard !isDirectory.boolValue else {
            throw ImageError(.unreadableFile, "cannot read image file \(url.path): it is a directory")
        }
        do {
            return try Data(contentsOf: url)
        } catch {
            let reason = (error as NSError).localizedFailureReason ?? error.localizedDescription
            throw ImageError(.unreadableFile, "cannot read image file \(url.path): \(reason)")
        }
    }
}
