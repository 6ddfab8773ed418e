import Foundation
import Testing

#if os(Linux)
/// What a failing test carries, read from child runs of this very test binary: each test of
/// `FailingFixtures` runs alone with its own `--attachments-path`, so the files Swift Testing
/// writes there are that test's attachments, under the names the trait gave them.
@Suite struct AttachmentTests {
    struct Run {
        var status: Int32
        var output: String
        /// File name to contents.
        var attachments: [String: String]
    }

    /// Runs one fixture test in a child process and collects what it left.
    static func run(_ fixture: String) throws -> Run {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("understudy-attachments-\(UUID().uuidString)")
        let attachments = directory.appendingPathComponent("attachments")
        try FileManager.default.createDirectory(at: attachments, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let outputFile = directory.appendingPathComponent("output.txt")
        _ = FileManager.default.createFile(atPath: outputFile.path, contents: nil)
        let output = try FileHandle(forWritingTo: outputFile)

        let process = Process()
        // Under `swift test` on Linux this process is the test binary itself.
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = [
            "--testing-library", "swift-testing",
            "--filter", "FailingFixtures/\(fixture)\\(\\)",
            "--attachments-path", attachments.path,
        ]
        process.environment = ProcessInfo.processInfo.environment.merging(["UNDERSTUDY_FAILING_FIXTURES": "1"]) { $1 }
        process.standardOutput = output
        process.standardError = output
        try process.run()
        process.waitUntilExit()
        try output.close()

        var files: [String: String] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: attachments.path) {
            files[name] = try String(contentsOf: attachments.appendingPathComponent(name), encoding: .utf8)
        }
        return Run(
            status: process.terminationStatus,
            output: try String(contentsOf: outputFile, encoding: .utf8),
            attachments: files
        )
    }

    /// The HAR entries' URLs and statuses, read with JSONSerialization rather than our HAR model.
    static func entries(ofHAR text: String?) throws -> [String] {
        let har = try #require(text)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(har.utf8)) as? [String: Any])
        let log = try #require(json["log"] as? [String: Any])
        let entries = try #require(log["entries"] as? [[String: Any]])
        return entries.map { entry in
            let url = (entry["request"] as? [String: Any])?["url"] as? String ?? "?"
            let status = (entry["response"] as? [String: Any])?["status"] as? Int ?? -1
            return "\(url) \(status)"
        }
    }

    @Test func anUnmatchedRequestFailsTheTestWhichCarriesTheJournalAndTheNearMisses() throws {
        let run = try Self.run("unmatchedRequest")
        #expect(run.status != 0, "\(run.output)")
        #expect(run.output.contains("1 unmatched request:"), "\(run.output)")
        #expect(run.attachments.keys.sorted() == ["journal.har", "near-misses.txt"], "\(run.output)")
        #expect(run.attachments["near-misses.txt"] == """
            1 unmatched request:
              GET http://img.test/dog.png
                1. "cat" (1 of 2 parts matched): path is /cat.png (got /dog.png)
            Requests made:
              1. GET http://img.test/cat.png -> stub "cat" 200
              2. GET http://img.test/dog.png -> unmatched unmatched
            """)
        // The unmatched request has no response status: HAR writes 0.
        #expect(try Self.entries(ofHAR: run.attachments["journal.har"]) == ["http://img.test/cat.png 200", "http://img.test/dog.png 0"])
    }

    @Test(arguments: ["failedExpectation", "failedInAChildTask", "thrownError"])
    func aTestFailedByAnythingCarriesItsJournal(fixture: String) throws {
        let run = try Self.run(fixture)
        #expect(run.status != 0, "\(run.output)")
        #expect(run.attachments.keys.sorted() == ["journal.har", "near-misses.txt"], "\(run.output)")
        #expect(try Self.entries(ofHAR: run.attachments["journal.har"]) == ["http://img.test/cat.png 200"])
        #expect(run.attachments["near-misses.txt"] == """
            No unmatched requests.
            Requests made:
              1. GET http://img.test/cat.png -> stub "cat" 200
            """)
    }

    @Test(arguments: ["passes", "knownIssueOnly", "warningOnly", "cancelled"])
    func aTestThatDidNotFailCarriesNothing(fixture: String) throws {
        let run = try Self.run(fixture)
        #expect(run.status == 0, "\(run.output)")
        // The fixture ran (a filter matching nothing would pass too).
        #expect(run.output.contains("Test run with 1 test"), "\(run.output)")
        #expect(run.attachments.isEmpty, "\(run.output)")
    }
}
#endif
