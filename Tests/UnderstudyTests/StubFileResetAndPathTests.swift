import Foundation
import Understudy
import XCTest

/// `reset()` goes back to the files on disk; paths in stub files stay inside the loaded directory.
final class StubFileResetAndPathTests: XCTestCase {
    // MARK: - reset()

    func testResetRestoresTimesAndSequencesAndClearsTheJournal() async throws {
        let sandbox = try StubFileSandbox()
        try sandbox.write("a.yaml", """
            stubs:
              - name: once
                times: 1
                request: { path: /once }
              - name: steps
                request: { path: /steps }
                responses: [{ body: one }, { body: two }]
            """)
        let registry = StubRegistry()
        try registry.load(from: sandbox.stubs)
        _ = try await registry.answer("http://x.test/once")
        let exhausted = await registry.isUnmatched("http://x.test/once")
        XCTAssertTrue(exhausted)
        let first = try await registry.answer("http://x.test/steps").text
        let second = try await registry.answer("http://x.test/steps").text
        XCTAssertEqual([first, second], ["one", "two"])
        _ = registry.journal.open(StubRequest("http://x.test/once")!, transport: .inProcess, httpVersion: .http1_1)
        XCTAssertEqual(registry.journal.count, 1)

        try registry.reset()

        XCTAssertEqual(registry.journal.count, 0)
        let got1 = try await registry.answer("http://x.test/once").stubName
        XCTAssertEqual(got1, "once")
        let got2 = try await registry.answer("http://x.test/steps").text
        XCTAssertEqual(got2, "one")
    }

    func testResetRereadsEditedFilesAndDropsStubsAddedInCode() async throws {
        let sandbox = try StubFileSandbox()
        try sandbox.write("a.yaml", "stubs:\n  - name: a\n    request: { path: /a }\n    response: { body: before }\n")
        let registry = StubRegistry()
        try registry.load(from: sandbox.stubs)
        registry.stub(.path("/code"), named: "code", response: .status(204))
        let got3 = try await registry.answer("http://x.test/a").text
        XCTAssertEqual(got3, "before")

        try sandbox.write("a.yaml", "stubs:\n  - name: a\n    request: { path: /a }\n    response: { body: after }\n")
        try sandbox.write("sub/b.json", #"{"stubs": [{"name": "b", "request": {"path": "/b"}, "response": {"status": 202}}]}"#)
        try registry.reset()

        let got4 = try await registry.answer("http://x.test/a").text
        XCTAssertEqual(got4, "after")
        let got5 = try await registry.answer("http://x.test/b").status
        XCTAssertEqual(got5, 202)
        let codeStubGone = await registry.isUnmatched("http://x.test/code")
        XCTAssertTrue(codeStubGone)
        XCTAssertEqual(Set(registry.stubs.map(\.name)), ["a", "b"])
        XCTAssertEqual(registry.loadedSources, [sandbox.stubs])
    }

    func testResetWithABrokenFileThrowsAndChangesNothing() async throws {
        let sandbox = try StubFileSandbox()
        try sandbox.write("a.yaml", "stubs:\n  - name: a\n    times: 1\n    request: { path: /a }\n")
        let registry = StubRegistry()
        try registry.load(from: sandbox.stubs)
        _ = try await registry.answer("http://x.test/a")
        try sandbox.write("a.yaml", "stubs:\n  - name: a\n    times: none\n")

        XCTAssertThrowsError(try registry.reset()) { error in
            XCTAssertEqual("\(error)", "Stubs/a.yaml:3: stubs[0].times: expected an integer >= 1, found string 'none'")
        }
        XCTAssertEqual(registry.useCounts, ["a": 1], "the old stubs stay, uses and all")
        XCTAssertEqual(registry.journal.count, 0, "answering without a transport does not journal; nothing was cleared or added")
    }

    func testAFailedLoadAddsNothing() throws {
        let sandbox = try StubFileSandbox()
        try sandbox.write("a.yaml", "stubs:\n  - name: good\n")
        try sandbox.write("b.yaml", "stubs:\n  - name: bad\n    response: { status: 42 }\n")
        let registry = StubRegistry()
        XCTAssertThrowsError(try registry.load(from: sandbox.stubs))
        XCTAssertTrue(registry.stubs.isEmpty)
        XCTAssertTrue(registry.loadedSources.isEmpty)
    }

    // MARK: - Paths

    func testParentDirectoryEscapeIsRefused() throws {
        let sandbox = try StubFileSandbox()
        try "secret".write(to: sandbox.base.appendingPathComponent("secret.txt"), atomically: true, encoding: .utf8)
        try sandbox.write("sub/a.yaml", """
            stubs:
              - response: { file: ../../secret.txt }
              - response: { file: ./../../Stubs/../secret.txt }
            """)
        XCTAssertEqual(sandbox.issues(), [
            "Stubs/sub/a.yaml:2: stubs[0].response.file: path '../../secret.txt' escapes Stubs; expected a path inside it",
            "Stubs/sub/a.yaml:3: stubs[1].response.file: path './../../Stubs/../secret.txt' escapes Stubs; expected a path inside it",
        ])
    }

    func testAbsolutePathIsRefused() throws {
        let sandbox = try StubFileSandbox()
        try sandbox.write("a.json", #"{"stubs": [{"response": {"file": "/etc/hostname"}}]}"#)
        XCTAssertEqual(sandbox.issues(), [
            "Stubs/a.json:1: stubs[0].response.file: absolute path '/etc/hostname' is refused; expected a path relative to the stub file, inside Stubs",
        ])
    }

    func testSymlinkPointingOutsideIsRefused() throws {
        let sandbox = try StubFileSandbox()
        let outside = sandbox.base.appendingPathComponent("outside.png")
        try pngBytes.write(to: outside)
        try sandbox.write("a.yaml", "stubs:\n  - response: { file: images/link.png }\n")
        try FileManager.default.createDirectory(at: sandbox.stubs.appendingPathComponent("images"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            at: sandbox.stubs.appendingPathComponent("images/link.png"), withDestinationURL: outside
        )
        try FileManager.default.createSymbolicLink(
            at: sandbox.stubs.appendingPathComponent("elsewhere.yaml"),
            withDestinationURL: sandbox.base.appendingPathComponent("elsewhere.yaml")
        )
        try "stubs:\n  - name: sneaky\n".write(
            to: sandbox.base.appendingPathComponent("elsewhere.yaml"), atomically: true, encoding: .utf8
        )
        let target = URL(fileURLWithPath: sandbox.base.appendingPathComponent("elsewhere.yaml").path).resolvingSymlinksInPath().path
        XCTAssertEqual(sandbox.issues(), [
            "Stubs/a.yaml:2: stubs[0].response.file: path 'images/link.png' resolves outside Stubs through a symlink; expected a file inside it",
            "Stubs/elsewhere.yaml: symlink resolves outside Stubs (to \(target)); expected stub files inside it",
        ])
    }

    func testSymlinkInsideTheDirectoryAndClimbingBackInAreAllowed() async throws {
        let sandbox = try StubFileSandbox()
        try sandbox.write("images/cat.png", pngBytes)
        try FileManager.default.createSymbolicLink(
            at: sandbox.stubs.appendingPathComponent("alias.png"),
            withDestinationURL: sandbox.stubs.appendingPathComponent("images/cat.png")
        )
        try sandbox.write("deep/er/a.yaml", """
            stubs:
              - request: { path: /up }
                response: { file: ../../images/cat.png }
              - request: { path: /link }
                response: { file: ../../alias.png }
            """)
        let registry = StubRegistry()
        try registry.load(from: sandbox.stubs)
        let got6 = try await registry.answer("http://x.test/up").body
        XCTAssertEqual(got6, pngBytes)
        let got7 = try await registry.answer("http://x.test/link").body
        XCTAssertEqual(got7, pngBytes)
    }

    func testDirectoryAsFileAndMissingDirectory() throws {
        let sandbox = try StubFileSandbox()
        try sandbox.write("images/cat.png", pngBytes)
        try sandbox.write("a.yaml", "stubs:\n  - response: { file: images }\n")
        XCTAssertEqual(sandbox.issues(), [
            "Stubs/a.yaml:2: stubs[0].response.file: 'images' is a directory; expected a file",
        ])
        XCTAssertThrowsError(try StubFileLoader.load(from: sandbox.relative("Nope"))) { error in
            XCTAssertEqual("\(error)", "Nope: no such file or directory; expected a directory of stub files or a stub file")
        }
    }

    func testHiddenAndOtherFilesAreSkipped() throws {
        let sandbox = try StubFileSandbox()
        try sandbox.write(".hidden.yaml", "not: valid")
        try sandbox.write(".git/config.json", "{")
        try sandbox.write("README.md", "# stubs")
        try sandbox.write("a.YAML", "stubs:\n  - name: upper\n")
        let loaded = try StubFileLoader.load(from: sandbox.stubs)
        XCTAssertEqual(loaded.files, ["Stubs/a.YAML"])
        XCTAssertEqual(loaded.stubs.map(\.name), ["upper"])
    }
}
