import ArgumentParser
import Foundation
import Understudy
import UnderstudyImages

extension UnderstudyCommand {
    /// `understudy transcode IN OUT [--to png|webp|jpeg|avif|heic|gif] [--quality Q] [--lossless]
    /// [--progressive] [--speed S]`.
    struct Transcode: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Convert a PNG, WebP, JPEG, GIF, AVIF or HEIC image to PNG, WebP, JPEG, AVIF, HEIC or GIF.",
            discussion: """
                The output format comes from --to, else from OUT's extension (.png, .webp, .jpg, .jpeg, \
                .avif, .heic or .gif). WebP is lossy at --quality (80 by default) unless --lossless is given; \
                JPEG is baseline at --quality (85 by default) unless --progressive is given; AVIF is at \
                --quality (60 by default) and encoder --speed (8 by default, 0 slowest to 10 fastest); \
                HEIC at --quality (60 by default); GIF takes a palette chosen from the image (median cut). \
                An animated input gives its first frame. \
                Exits 1 when IN cannot be read or decoded, 64 when the options are wrong.
                """
        )

        @Argument(help: "The PNG, WebP, JPEG, GIF, AVIF or HEIC file to read.")
        var input: String

        @Argument(help: "The file to write.")
        var output: String

        @Option(name: .customLong("to"), help: "png, webp, jpeg, avif, heic or gif (default: from OUT's extension).")
        var format: String?

        @Option(help: "WebP quality 0-100 (default 80), JPEG 1-100 (default 85), AVIF or HEIC 0-100 (default 60); 100 the best.")
        var quality: Int?

        @Option(help: "AVIF encoder speed, 0 (slowest, smallest) to 10 (fastest); default 8.")
        var speed: Int?

        @Flag(help: "Lossless WebP.")
        var lossless = false

        @Flag(help: "Progressive JPEG (drawn in passes, coarse first).")
        var progressive = false

        /// The library job these arguments describe.
        func job() throws -> ImageFileTranscode {
            do {
                return try ImageFileTranscode(
                    input: URL(fileURLWithPath: input), output: URL(fileURLWithPath: output),
                    format: format, quality: quality, lossless: lossless, progressive: progressive, speed: speed
                )
            } catch let failure as ImageFileTranscode.Failure {
                throw ValidationError(failure.description)
            }
        }

        func validate() throws {
            _ = try job()
        }

        func run() throws {
            do {
                print(try job().run())
            } catch let failure as ImageFileTranscode.Failure {
                FileHandle.standardError.write(Data("Error: \(failure)\n".utf8))
                throw ExitCode.failure
            }
        }
    }
}
