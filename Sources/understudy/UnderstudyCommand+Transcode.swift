import ArgumentParser
import Foundation
import Understudy
import UnderstudyImages

extension UnderstudyCommand {
    /// `understudy transcode IN OUT [--to png|webp|jpeg] [--quality Q] [--lossless] [--progressive]`.
    struct Transcode: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Convert a PNG, WebP or JPEG image to PNG, WebP or JPEG.",
            discussion: """
                The output format comes from --to, else from OUT's extension (.png, .webp, .jpg or .jpeg). \
                WebP is lossy at --quality (80 by default) unless --lossless is given; JPEG is baseline \
                at --quality (85 by default) unless --progressive is given. \
                Exits 1 when IN cannot be read or decoded, 64 when the options are wrong.
                """
        )

        @Argument(help: "The PNG, WebP or JPEG file to read.")
        var input: String

        @Argument(help: "The file to write.")
        var output: String

        @Option(name: .customLong("to"), help: "png, webp or jpeg (default: from OUT's extension).")
        var format: String?

        @Option(help: "WebP quality 0-100 (default 80) or JPEG quality 1-100 (default 85), 100 the best.")
        var quality: Int?

        @Flag(help: "Lossless WebP.")
        var lossless = false

        @Flag(help: "Progressive JPEG (drawn in passes, coarse first).")
        var progressive = false

        /// The library job these arguments describe.
        func job() throws -> ImageFileTranscode {
            do {
                return try ImageFileTranscode(
                    input: URL(fileURLWithPath: input), output: URL(fileURLWithPath: output),
                    format: format, quality: quality, lossless: lossless, progressive: progressive
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
