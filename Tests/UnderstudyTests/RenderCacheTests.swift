import Foundation
@testable import Understudy
import XCTest

/// Canned answers are rendered once and reused, but never when that would change what a
/// client sees: an edited file, a random delay.
final class RenderCacheTests: XCTestCase {
    private func prepared(_ stubs: StubRegistry, _ url: String, in turn: FileCheckTurn? = nil) throws -> PreparedResponse {
        let request = try XCTUnwrap(StubRequest(url))
        var repeatable: StubRegistry.RepeatableMatch?
        guard case .resolved(.response(let prepared)) = stubs.resolveImmediately(request, repeatable: &repeatable, fileCheck: turn) else {
            XCTFail("\(url) was not answered on the spot")
            throw CancellationError()
        }
        return prepared
    }

    /// A new empty directory, removed when the test ends.
    private func makeDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("render-cache-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        return directory
    }

    func testAFileIsRenderedOnceAndAgainWhenItChanges() throws {
        let directory = try makeDirectory()
        let file = directory.appendingPathComponent("a.txt")
        try Data("first".utf8).write(to: file)
        let stubs = StubRegistry()
        stubs.stub(.path("/a.txt"), named: "a", response: .file(file))

        let first = try prepared(stubs, "http://h/a.txt")
        let again = try prepared(stubs, "http://h/a.txt")
        XCTAssertEqual(first.body, Data("first".utf8))
        XCTAssertNotNil(first.renderID)
        XCTAssertEqual(again.renderID, first.renderID, "an unchanged file reuses the rendering")

        try Data("second, longer".utf8).write(to: file)
        let edited = try prepared(stubs, "http://h/a.txt")
        XCTAssertEqual(edited.body, Data("second, longer".utf8))
        XCTAssertEqual(edited.headers["Content-Length"], "14")
        XCTAssertNotEqual(edited.renderID, first.renderID)

        try FileManager.default.removeItem(at: file)
        guard case .resolved(.failed(let failure, let message)) = stubs.resolveImmediately(try XCTUnwrap(StubRequest("http://h/a.txt"))) else {
            return XCTFail("a deleted file must fail, not serve the cached copy")
        }
        XCTAssertEqual(failure.status, 500)
        XCTAssertTrue(message.contains("cannot read file"), message)
    }

    /// The file swapped for another by renaming the directory above it, then edited: each
    /// version is served as soon as it is there (on Linux, where a file-change monitor spares the
    /// per-request `stat`, this is what that monitor must not miss).
    func testAFileBehindAReplacedDirectoryIsServedFreshAndSoAreLaterEdits() throws {
        let root = try makeDirectory()
        let directory = root.appendingPathComponent("images")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("a.txt")
        try Data("first".utf8).write(to: file)
        let stubs = StubRegistry()
        stubs.stub(.path("/a.txt"), named: "a", response: .file(file))
        XCTAssertEqual(try prepared(stubs, "http://h/a.txt").body, Data("first".utf8))
        XCTAssertEqual(try prepared(stubs, "http://h/a.txt").body, Data("first".utf8))

        try FileManager.default.moveItem(at: directory, to: root.appendingPathComponent("old"))
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data("second!".utf8).write(to: file)
        XCTAssertEqual(try prepared(stubs, "http://h/a.txt").body, Data("second!".utf8))
        XCTAssertEqual(try prepared(stubs, "http://h/a.txt").body, Data("second!".utf8))

        try Data("third, longer".utf8).write(to: file)
        XCTAssertEqual(try prepared(stubs, "http://h/a.txt").body, Data("third, longer".utf8))

        // The old directory, edited where it now is, is no longer the stub's.
        try Data("not served".utf8).write(to: root.appendingPathComponent("old/a.txt"))
        XCTAssertEqual(try prepared(stubs, "http://h/a.txt").body, Data("third, longer".utf8))

        try FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data("fourth".utf8).write(to: file)
        XCTAssertEqual(try prepared(stubs, "http://h/a.txt").body, Data("fourth".utf8))
        try Data("fifth!".utf8).write(to: file.appendingPathExtension("new"))
        // Written aside and renamed over it, as editors save.
        XCTAssertEqual(rename(file.appendingPathExtension("new").path, file.path), 0)
        XCTAssertEqual(try prepared(stubs, "http://h/a.txt").body, Data("fifth!".utf8))
    }

    /// Within a turn of an event loop (``FileCheckTurn``), the queue of file changes is looked
    /// at once: an edit shows from the next turn (the next time the loop wakes for requests
    /// sent after it), and outside a turn at once.
    func testWithinAnEventLoopsTurnAnEditShowsFromTheNextTurn() throws {
        let directory = try makeDirectory()
        let file = directory.appendingPathComponent("a.txt")
        try Data("first".utf8).write(to: file)
        let stubs = StubRegistry()
        stubs.stub(.path("/a.txt"), named: "a", response: .file(file))
        let turn = FileCheckTurn()
        func body(in turn: FileCheckTurn? = nil) throws -> String {
            String(decoding: try prepared(stubs, "http://h/a.txt", in: turn).body, as: UTF8.self)
        }

        XCTAssertEqual(try body(in: turn), "first")
        XCTAssertTrue(turn.hasLooked)
        try Data("second, longer".utf8).write(to: file)
        XCTAssertEqual(try body(in: turn), "first", "the turn's one look came before the edit")
        turn.end()
        XCTAssertFalse(turn.hasLooked)
        XCTAssertEqual(try body(in: turn), "second, longer", "the next turn looks again")
        try Data("third".utf8).write(to: file)
        XCTAssertEqual(try body(), "third", "outside a turn, every answer looks")
    }

    /// A request a server answers again (``StubRegistry/resolveAgain(_:for:fileCheck:)``) gets
    /// what it got last time, a `304` included, for as long as that holds: an edit shows from
    /// the next turn, with a new tag that the old one no longer matches.
    func testARepeatGetsItsLastAnswerUntilTheFileChanges() throws {
        let directory = try makeDirectory()
        let file = directory.appendingPathComponent("a.txt")
        try Data("first".utf8).write(to: file)
        let stubs = StubRegistry()
        stubs.stub(.path("/a.txt"), named: "a", response: .file(file))
        let tag = try XCTUnwrap(try prepared(stubs, "http://h/a.txt").headers["ETag"])
        let plain = try XCTUnwrap(StubRequest("http://h/a.txt"))
        let revalidating = StubRequest(method: "GET", url: try XCTUnwrap(URL(string: "http://h/a.txt")), headers: ["If-None-Match": tag])
        let turn = FileCheckTurn()
        func kept(_ request: StubRequest) throws -> StubRegistry.RepeatableMatch {
            var repeatable: StubRegistry.RepeatableMatch?
            _ = stubs.resolveImmediately(request, repeatable: &repeatable, fileCheck: turn)
            return try XCTUnwrap(repeatable)
        }
        func again(_ repeatable: StubRegistry.RepeatableMatch, _ request: StubRequest) throws -> PreparedResponse {
            guard case .response(let response)? = stubs.resolveAgain(repeatable, for: request, fileCheck: turn) else {
                XCTFail("not answered again")
                throw CancellationError()
            }
            return response
        }
        func body(_ response: PreparedResponse) -> String { String(decoding: response.body, as: UTF8.self) }

        let keptPlain = try kept(plain), keptRevalidating = try kept(revalidating)
        for _ in 0..<3 {
            XCTAssertEqual(body(try again(keptPlain, plain)), "first")
            XCTAssertEqual(try again(keptRevalidating, revalidating).status, 304)
            turn.end()
        }
        XCTAssertEqual(stubs.useCounts["a"], 9, "every answer again counts as a use")

        XCTAssertEqual(body(try again(keptPlain, plain)), "first")
        try Data("second, longer".utf8).write(to: file)
        XCTAssertEqual(body(try again(keptPlain, plain)), "first", "the turn's one look came before the edit")
        turn.end()
        XCTAssertEqual(body(try again(keptPlain, plain)), "second, longer")
        let edited = try again(keptRevalidating, revalidating)
        XCTAssertEqual(edited.status, 200, "the old tag no longer matches")
        XCTAssertEqual(body(edited), "second, longer")
        XCTAssertNotEqual(edited.headers["ETag"], tag)
        turn.end()
        XCTAssertEqual(try again(keptRevalidating, revalidating).status, 200, "nor the next time")
        XCTAssertEqual(body(try again(keptPlain, plain)), "second, longer")

        stubs.stub(.path("/other"), response: .text("other"))
        XCTAssertNil(stubs.resolveAgain(keptPlain, for: plain, fileCheck: turn), "a stub added since: decided in full")
    }

    func testRandomDelaysAndSequencesAreNotReused() throws {
        let stubs = StubRegistry()
        stubs.stub(.path("/slow"), response: .text("x").delayed(.uniform(.milliseconds(100)...(.milliseconds(900)))))
        stubs.stub(.path("/steps"), responses: [.text("one"), .text("two")])
        stubs.stub(.path("/fixed"), response: .text("x").delayed(by: .milliseconds(5)))
        // The registry's rendering leaves the delay to be drawn per request (as the responder does).
        let delays = try (0..<8).map { _ in stubs.drawn(try prepared(stubs, "http://h/slow")).delay }
        XCTAssertGreaterThan(Set(delays).count, 1, "each use draws its own delay: \(delays)")
        XCTAssertNil(try prepared(stubs, "http://h/slow").renderID)
        XCTAssertEqual(String(decoding: try prepared(stubs, "http://h/steps").body, as: UTF8.self), "one")
        XCTAssertEqual(String(decoding: try prepared(stubs, "http://h/steps").body, as: UTF8.self), "two")
        let fixed = try prepared(stubs, "http://h/fixed")
        XCTAssertEqual(fixed.delay, .milliseconds(5))
        XCTAssertEqual(try prepared(stubs, "http://h/fixed").renderID, fixed.renderID)
    }
}
