import ArgumentParser
import Foundation
import Understudy
import UnderstudyImages

extension UnderstudyCommand {
    /// `understudy hazards [--json] [--write DIR]`: SPEC 20's catalogue of image hazards.
    struct Hazards: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the image hazards (what breaks image clients), or write them as files.",
            discussion: """
                Prints a line per hazard: name, group, summary. --json prints the catalogue as \
                GET /hazards/ serves it; --write DIR writes each hazard's body, its expected.png \
                and hazards.json. `understudy serve --hazards` serves them under /hazards/.
                """
        )

        @Flag(help: "Print the whole catalogue as JSON.")
        var json = false

        @Option(help: ArgumentHelp("Write each hazard's body and expected image into this directory.", valueName: "dir"))
        var write: String?

        func run() throws {
            if let write {
                let files: [URL]
                do {
                    files = try HazardCatalogue.write(to: URL(fileURLWithPath: write))
                } catch {
                    FileHandle.standardError.write(Data("understudy hazards --write \(write): \(error)\n".utf8))
                    throw ExitCode(1)
                }
                print("wrote \(files.count) files for \(Hazard.allCases.count) hazards to \(write)")
            } else if json {
                print(String(decoding: HazardCatalogue().jsonData, as: UTF8.self))
            } else {
                let width = Hazard.allNames.map(\.count).max() ?? 0
                for hazard in Hazard.allCases {
                    let name = hazard.name.padding(toLength: width, withPad: " ", startingAt: 0)
                    let group = hazard.group.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0)
                    print("\(name)  \(group)  \(hazard.summary)")
                }
            }
        }
    }
}
