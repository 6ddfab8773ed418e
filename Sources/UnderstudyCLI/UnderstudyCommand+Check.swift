import ArgumentParser
import Foundation
import Understudy

extension UnderstudyCommand {
    /// `understudy check DIR...`: validates stub files without serving them.
    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check stub files (YAML or JSON) and report every error.",
            discussion: """
                Prints each error as FILE:LINE: PATH: message on stderr and exits 2, \
                or prints a one-line summary on stdout and exits 0.
                """
        )

        @Argument(help: ArgumentHelp(
            "Stub directories (read recursively) or stub files (default: Stubs, unless --wiremock is given).", valueName: "paths"
        ))
        var givenPaths: [String] = []

        @Option(name: .customLong("wiremock"), help: ArgumentHelp(
            "A WireMock directory (mappings/ and __files/) to check as well; repeatable.", valueName: "dir"
        ))
        var wireMockDirectories: [String] = []

        /// The stub paths to check: those given, else `Stubs` unless only WireMock directories were given.
        var paths: [String] {
            givenPaths.isEmpty && wireMockDirectories.isEmpty ? ["Stubs"] : givenPaths
        }

        func run() throws {
            let check = StubFileCheck(
                paths: paths.map { URL(fileURLWithPath: $0) }, wireMock: wireMockDirectories.map { URL(fileURLWithPath: $0) }
            )
            guard check.isValid else {
                let report = check.errors.joined(separator: "\n") + "\n"
                FileHandle.standardError.write(Data(report.utf8))
                throw ExitCode(check.exitCode)
            }
            print(check.summary)
        }
    }
}
