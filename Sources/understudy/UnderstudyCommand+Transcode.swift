import ArgumentParser
import Foundation
import Understudy

extension UnderstudyCommand {
    /// `understudy transcode IN OUT [--to png|webp] [--quality Q] [--lossless]`.
    struct Transcode: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Convert a PNG or WebP image to PNG or WebP.",
            discussion: """
                The output format comes from --to, else from OUT's extension (.png or .webp). \
                WebP is lossy at --quality (80 by default) unless --lossless is given. \
                Exits 1 when IN cannot be read or decoded, 64 when the options are wrong.
                """
        )

        @Argument(help: "The PNG or WebP file to read.")
        var input: String

        @Argument(help: "The file to write.")
        var output: String

        @Option(name: .customLong("to"), help: "png or webp (default: from OUT's extension).")
        var format: String?

        @Option(help: "WebP quality, 0 (smallest) to 100 (best); lossy WebP only.")
        var quality: Int?

        @Flag(help: "Lossless WebP.")
        var lossless = false

        /// The library job these arguments describe.
        func job() throws -> ImageFileTranscode {
            do {
                return try ImageFileTranscode(
                    input: URL(fileURLWithPath: input), output: URL(fileURLWithPath: output),
                    format: format, quality: quality, lossless: lossless
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
