import ArgumentParser

/// `understudy`: stands in for the image servers an app talks to.
///
/// The root command only lists the subcommands; each lives in its own file as an extension.
@main
struct UnderstudyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "understudy",
        abstract: "Stub, record and replay the image servers an app talks to.",
        subcommands: [CA.self, Check.self, Hazards.self, Record.self, Replay.self, Serve.self, Transcode.self]
    )
}
