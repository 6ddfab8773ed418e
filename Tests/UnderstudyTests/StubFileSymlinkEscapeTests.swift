import Foundation
import Understudy
import XCTest

/// A stub file shared in a repository is untrusted: neither its `file:` paths nor the stub files
/// themselves may reach outside the loaded directory through a symlinked directory, a symlinked
/// stub file, or `..` that only a lexical check would catch.
final class StubFileSymlinkEscapeTests: XCTestCase {
    /// `Stubs/` plus `outside/` beside it holding a PNG, a secret and a stub file.
    private func sandboxWithOutside() throws -> (StubFileSandbox, outside: URL) {
        let sandbox = try StubFileSandbox()
        let outside = sandbox.base.appendingPathComponent("outside", isDirectory: true)
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        try pngBytes.write(to: outside.appendingPathComponent("cat.png"))
        try Data("secret".utf8).write(to: outside.appendingPathComponent("secret.txt"))
        try Data("stubs:\n  - name: planted\n    response: { file: secret.txt }\n".utf8)
            .write(to: outside.appendingPathComponent("planted.yaml"))
        return (sandbox, outside)
    }

    private func link(_ sandbox: StubFileSandbox, _ name: String, to destination: URL) throws {
        let url = sandbox.stubs.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: url, withDestinationURL: destination)
    }

    private func realPath(_ url: URL) -> String {
        url.resolvingSymlinksInPath().path
    }

    func testFileReferenceThroughASymlinkedDirectoryIsRefusedAndTheDirectoryIsNotWalked() throws {
        let (sandbox, outside) = try sandboxWithOutside()
        try link(sandbox, "shared", to: outside)
        try sandbox.write("a.yaml", """
            stubs:
              - response: { file: shared/secret.txt }
              - response: { image: { file: shared/cat.png, as: png } }
              - responses: [{ body: ok }, { file: shared/../shared/secret.txt }]
            """)
        XCTAssertEqual(sandbox.issues(), [
            "Stubs/a.yaml:2: stubs[0].response.file: path 'shared/secret.txt' resolves outside Stubs through a symlink; expected a file inside it",
            "Stubs/a.yaml:3: stubs[1].response.image.file: path 'shared/cat.png' resolves outside Stubs through a symlink; expected a file inside it",
            "Stubs/a.yaml:4: stubs[2].responses[1].file: path 'shared/../shared/secret.txt' resolves outside Stubs through a symlink; expected a file inside it",
            // The walk refuses the linked directory too, planted.yaml and all.
            "Stubs/shared: symlink resolves outside Stubs (to \(realPath(outside))); expected stub files inside it",
        ])
    }

    func testSymlinkedStubFileLoadedByItselfIsRefused() throws {
        let (sandbox, outside) = try sandboxWithOutside()
        let planted = outside.appendingPathComponent("planted.yaml")
        try link(sandbox, "link.yaml", to: planted)
        XCTAssertThrowsError(try StubFileLoader.load(from: sandbox.relative("Stubs/link.yaml"))) { error in
            XCTAssertEqual(
                "\(error)",
                "Stubs/link.yaml: symlink resolves outside Stubs (to \(realPath(planted))); expected stub files inside it"
            )
        }
        let registry = StubRegistry()
        XCTAssertThrowsError(try registry.load(from: sandbox.relative("Stubs/link.yaml")))
        XCTAssertTrue(registry.stubs.isEmpty, "the planted stub is not added")
    }

    func testSymlinkedStubFileInsideTheDirectoryResolvesPathsBesideTheLink() async throws {
        let sandbox = try StubFileSandbox()
        try sandbox.write("images/cat.png", pngBytes)
        try sandbox.write("sub/real.yaml", "stubs:\n  - request: { path: /c }\n    response: { file: images/cat.png }\n")
        try link(sandbox, "alias.yaml", to: sandbox.stubs.appendingPathComponent("sub/real.yaml"))
        let registry = StubRegistry()
        try registry.load(from: sandbox.relative("Stubs/alias.yaml"))
        let body = try await registry.answer("http://x.test/c").body
        XCTAssertEqual(body, pngBytes, "images/cat.png is read beside Stubs/alias.yaml, as in a directory load")
    }

    func testEscapesAreRefusedBeforeTheFileSystemIsAsked() throws {
        // The messages prove the refusal is lexical: a path that does not exist is still said to
        // escape, never to be missing, so nothing outside was probed.
        let sandbox = try StubFileSandbox()
        try sandbox.write("a.yaml", """
            stubs:
              - response: { file: ../no-such-file }
              - response: { file: /no/such/file }
              - response: { image: { file: ../../no-such.png, as: webp } }
              - response: { file: "images/../../x" }
            """)
        XCTAssertEqual(sandbox.issues(), [
            "Stubs/a.yaml:2: stubs[0].response.file: path '../no-such-file' escapes Stubs; expected a path inside it",
            "Stubs/a.yaml:3: stubs[1].response.file: absolute path '/no/such/file' is refused; expected a path relative to the stub file, inside Stubs",
            "Stubs/a.yaml:4: stubs[2].response.image.file: path '../../no-such.png' escapes Stubs; expected a path inside it",
            "Stubs/a.yaml:5: stubs[3].response.file: path 'images/../../x' escapes Stubs; expected a path inside it",
        ])
    }
}
