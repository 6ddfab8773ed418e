import Foundation

/// A directory the stub-file targets resolve `file:` paths in, made once per process: a PNG, a
/// WebP, a text file, a subdirectory, and symlinks that point out of it, so that fuzzed paths
/// reach every branch of the resolver (inside, missing, directory, escaping, absolute).
public enum FuzzSandbox {
    /// The directory, created on first use and removed when the process exits.
    public static let directory: URL = {
        let base = FileManager.default.temporaryDirectory
            .appendingPathComponent("understudy-fuzz-\(ProcessInfo.processInfo.processIdentifier)", isDirectory: true)
        let stubs = base.appendingPathComponent("Stubs", isDirectory: true)
        let images = stubs.appendingPathComponent("images", isDirectory: true)
        try? FileManager.default.createDirectory(at: images, withIntermediateDirectories: true)
        try? Data(onePixelPNG).write(to: images.appendingPathComponent("cat.png"))
        try? Data(onePixelWebP).write(to: images.appendingPathComponent("cat.webp"))
        try? Data("hello".utf8).write(to: stubs.appendingPathComponent("a.txt"))
        try? Data("secret".utf8).write(to: base.appendingPathComponent("secret.txt"))
        try? FileManager.default.createSymbolicLink(
            at: stubs.appendingPathComponent("out.txt"), withDestinationURL: base.appendingPathComponent("secret.txt")
        )
        try? FileManager.default.createSymbolicLink(at: stubs.appendingPathComponent("etc"), withDestinationURL: URL(fileURLWithPath: "/etc"))
        atexit { try? FileManager.default.removeItem(at: FuzzSandbox.base) }
        return stubs
    }()

    private static var base: URL { directory.deletingLastPathComponent() }

    /// A 1x1 opaque PNG.
    static let onePixelPNG: [UInt8] = [
        0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
        0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4,
        0x89, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0xF8, 0xCF, 0xC0, 0xF0,
        0x1F, 0x00, 0x05, 0x00, 0x01, 0xFF, 0x89, 0x99, 0x3D, 0x1D, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
        0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
    ]

    /// A 1x1 lossless WebP.
    static let onePixelWebP: [UInt8] = [
        0x52, 0x49, 0x46, 0x46, 0x1A, 0x00, 0x00, 0x00, 0x57, 0x45, 0x42, 0x50, 0x56, 0x50, 0x38, 0x4C,
        0x0D, 0x00, 0x00, 0x00, 0x2F, 0x00, 0x00, 0x00, 0x10, 0x07, 0x10, 0x11, 0x11, 0x88, 0x88, 0xFE,
        0x07, 0x00,
    ]
}
