import Foundation

/// Where an image comes from (SPEC section 2).
///
/// ```swift
/// .file(URL(fileURLWithPath: "Stubs/images/cat.webp"))
/// .generated(width: 640, height: 480, pattern: .checkerboard)
/// ```
public enum ImageSource: Sendable, Hashable {
    /// An image file, PNG or WebP to be transcoded (any bytes to be served as they are).
    case file(URL)
    /// Image bytes in memory.
    case data(Data)
    /// An image drawn on demand, up to the pixel limit.
    case generated(width: Int, height: Int, pattern: ImagePattern)

    /// The source's own bytes: the file's contents, the data, or for a generated image its
    /// PNG encoding (a generated image has no other original form).
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
