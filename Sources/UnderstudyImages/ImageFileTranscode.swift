import Foundation

/// The work of `understudy transcode IN OUT [--to png|webp|jpeg|avif|heic|gif] [--quality Q]
/// [--lossless] [--progressive] [--speed S]`: reads a PNG, WebP, JPEG, GIF, AVIF or HEIC file
/// (an animation's first frame), writes it in another encoding. The CLI only
/// parses flags and prints.
///
/// ```swift
/// let job = try ImageFileTranscode(input: cat, output: URL(fileURLWithPath: "cat.png"))
/// let report = try job.run()
/// print(report)   // cat.png: PNG, 64x64, 1234 bytes (from WebP, 567 bytes)
/// ```
package struct ImageFileTranscode: Sendable {
    /// The file read.
    package let input: URL
    /// The file written (replaced when it exists).
    package let output: URL
    /// The encoding written.
    package let target: ImageFormat

    /// What went wrong, for the person at the command line: names the file or flag.
    package struct Failure: Error, Sendable, CustomStringConvertible, Equatable {
        /// The message.
        package let description: String
        /// Whether the command line itself is wrong (exit 64), rather than the files (exit 1).
        package let isUsageError: Bool

        init(_ description: String, usage: Bool = false) {
            self.description = description
            self.isUsageError = usage
        }
    }

    /// What was written.
    package struct Report: Sendable, CustomStringConvertible {
        /// The file written.
        package let output: URL
        /// The format read.
        package let inputKind: ImageKind
        /// The size of the file read.
        package let inputBytes: Int
        /// The encoding written.
        package let target: ImageFormat
        /// The size of the file written.
        package let outputBytes: Int
        /// Width in pixels.
        package let width: Int
        /// Height in pixels.
        package let height: Int

        /// `cat.png: PNG, 64x64, 1234 bytes (from WebP, 567 bytes)`.
        package var description: String {
            let from = inputKind.name
            return "\(output.relativePath): \(target.inWords), \(width)x\(height), \(outputBytes) bytes (from \(from), \(inputBytes) bytes)"
        }
    }

    /// The default WebP quality when `--quality` is not given.
    package static let defaultQuality = ImageFormat.defaultWebPQuality
    /// The default JPEG quality when `--quality` is not given.
    package static let defaultJPEGQuality = ImageFormat.defaultJPEGQuality
    /// The default AVIF and HEIC quality when `--quality` is not given.
    package static let defaultAVIFQuality = ImageFormat.defaultAVIFQuality
    /// The default AVIF encoder speed when `--speed` is not given.
    package static let defaultAVIFSpeed = ImageFormat.defaultAVIFSpeed

    /// Checks the options and picks the target.
    /// - Parameters:
    ///   - input: the PNG, WebP, JPEG, GIF, AVIF or HEIC file to read.
    ///   - output: the file to write.
    ///   - format: `png`, `webp`, `jpeg` (also `jpg`), `avif`, `heic` (also `heif`) or `gif`;
    ///     `nil` takes it from `output`'s extension.
    ///   - quality: WebP quality 0...100 (80 when `nil`), JPEG quality 1...100 (85 when `nil`),
    ///     AVIF or HEIC quality 0...100 (60 when `nil`).
    ///   - lossless: lossless WebP (WebP only; not with `quality`).
    ///   - progressive: progressive JPEG (JPEG only).
    ///   - speed: AVIF encoder speed 0...10 (8 when `nil`; AVIF only).
    /// - Throws: ``Failure`` naming the flag or file that is wrong.
    package init(
        input: URL, output: URL, format: String? = nil, quality: Int? = nil, lossless: Bool = false, progressive: Bool = false,
        speed: Int? = nil
    ) throws {
        self.input = input
        self.output = output
        let names = ["png": "png", "webp": "webp", "jpeg": "jpeg", "jpg": "jpeg", "avif": "avif", "heic": "heic", "heif": "heic", "gif": "gif"]
        let name: String
        if let format {
            guard let known = names[format.lowercased()] else {
                throw Failure("--to: unknown format '\(format)'; expected png, webp, jpeg, avif, heic or gif", usage: true)
            }
            name = known
        } else {
            guard let known = names[output.pathExtension.lowercased()] else {
                let found = output.pathExtension.isEmpty ? "has no extension" : "ends in '.\(output.pathExtension)'"
                throw Failure("OUT '\(output.relativePath)' \(found); expected .png, .webp, .jpg, .jpeg, .avif, .heic or .gif, or give --to png|webp|jpeg|avif|heic|gif", usage: true)
            }
            name = known
        }
        if progressive, name != "jpeg" {
            throw Failure("--progressive applies only to JPEG output; found --to \(name)", usage: true)
        }
        if lossless, name != "webp" {
            let why = switch name {
            case "png": "PNG is always lossless"
            case "gif": "GIF is always palette-based"
            default: "\(name.uppercased()) is always lossy"
            }
            throw Failure("--lossless applies only to WebP output; \(why)", usage: true)
        }
        if let speed, name != "avif" {
            throw Failure("--speed \(speed) applies only to AVIF output; found --to \(name)", usage: true)
        }
        switch name {
        case "png", "gif":
            if quality != nil {
                throw Failure("--quality applies only to WebP, JPEG, AVIF and HEIC output; \(name == "png" ? "PNG is lossless" : "GIF has no quality setting")", usage: true)
            }
            target = name == "png" ? .png : .gif
        case "avif", "heic":
            if let quality, !(0...100).contains(quality) {
                throw Failure("--quality \(quality) is out of range; expected an integer from 0 to 100", usage: true)
            }
            if let speed, !(0...10).contains(speed) {
                throw Failure("--speed \(speed) is out of range; expected an integer from 0 (slowest) to 10 (fastest)", usage: true)
            }
            let quality = quality ?? Self.defaultAVIFQuality
            target = name == "avif" ? .avif(quality: quality, speed: speed ?? Self.defaultAVIFSpeed) : .heic(quality: quality)
        case "jpeg":
            if let quality, !(1...100).contains(quality) {
                throw Failure("--quality \(quality) is out of range for JPEG; expected an integer from 1 to 100", usage: true)
            }
            let quality = quality ?? Self.defaultJPEGQuality
            target = progressive ? .jpegProgressive(quality: quality) : .jpeg(quality: quality)
        default:
            if let quality, !(0...100).contains(quality) {
                throw Failure("--quality \(quality) is out of range; expected an integer from 0 to 100", usage: true)
            }
            if lossless {
                if quality != nil { throw Failure("--quality and --lossless exclude each other; give one of them", usage: true) }
                target = .webpLossless
            } else {
                target = .webp(quality: quality ?? Self.defaultQuality)
            }
        }
    }

    /// Reads, transcodes and writes.
    /// - Throws: ``Failure`` when IN cannot be read or decoded, or OUT cannot be written.
    package func run() throws -> Report {
        let data: Data
        do {
            data = try Data(contentsOf: input)
        } catch {
            let reason = FileManager.default.fileExists(atPath: input.path)
                ? ((error as NSError).localizedFailureReason ?? "\(error.localizedDescription)")
                : "no such file"
            throw Failure("cannot read IN '\(input.relativePath)': \(reason)")
        }
        let image: RGBAImage
        do {
            image = try RGBAImage(decoding: data)
        } catch {
            throw Failure("IN '\(input.relativePath)' cannot be decoded: \(error)")
        }
        let encoded: Data
        do {
            encoded = try image.encoded(as: target)
        } catch {
            throw Failure("cannot encode '\(output.relativePath)': \(error)")
        }
        do {
            try encoded.write(to: output, options: .atomic)
        } catch {
            throw Failure("cannot write OUT '\(output.relativePath)': \((error as NSError).localizedFailureReason ?? error.localizedDescription)")
        }
        return Report(
            output: output, inputKind: ImageKind.detect(data) ?? .png, inputBytes: data.count, target: target,
            outputBytes: encoded.count, width: image.width, height: image.height
        )
    }
}
