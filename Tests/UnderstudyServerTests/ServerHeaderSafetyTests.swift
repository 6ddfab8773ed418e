import Foundation
import Understudy
import UnderstudyServer
import XCTest

/// NIO's per-response header check is off for speed; every rendering is checked once instead,
/// so a stub can never split a response or inject a header.
final class ServerHeaderSafetyTests: XCTestCase {
    func testAHeaderWithCRLFIsNeverSentAndTheStubAnswers500() async throws {
        let stubs = StubRegistry()
        stubs.stub(.path("/split"), named: "split", response: .text("hi").headers(["X-Note": "a\r\nSet-Cookie: stolen=1"]))
        stubs.stub(.path("/bad-name"), named: "bad-name", response: .text("hi").headers(["X Note": "a"]))
        stubs.stub(.path("/redirect"), named: "redirect", response: .redirect(to: "/a\r\nX-Injected: 1", status: 302))
        stubs.stub(.path("/ok"), named: "ok", response: .text("fine"))
        try await withServer(stubs) { server in
            for (path, problem) in [
                ("split", "header X-Note's value contains CR, LF or NUL"),
                ("bad-name", "header name \"X Note\" is not an HTTP token"),
                ("redirect", "header Location's value contains CR, LF or NUL"),
            ] {
                let result = try curl(["--include", server.baseURL.appendingPathComponent(path).absoluteString])
                XCTAssertEqual(result.status, 0, result.stderr)
                XCTAssertTrue(result.text.hasPrefix("HTTP/1.1 500 Internal Server Error\r\n"), result.text)
                XCTAssertFalse(result.text.contains("stolen") || result.text.contains("X-Injected"), result.text)
                XCTAssertTrue(result.text.contains("stub \"\(path)\" cannot be sent: \(problem)"), result.text)
            }
            let ok = try curl([server.baseURL.appendingPathComponent("ok").absoluteString])
            XCTAssertEqual(ok.text, "fine")
            let outcomes = stubs.journal.interactions.map { "\($0.request.path) \($0.status.map(String.init) ?? "-") \($0.outcome)" }
            XCTAssertEqual(outcomes, [
                "/split 500 failed: stub \"split\" cannot be sent: header X-Note's value contains CR, LF or NUL",
                "/bad-name 500 failed: stub \"bad-name\" cannot be sent: header name \"X Note\" is not an HTTP token",
                "/redirect 500 failed: stub \"redirect\" cannot be sent: header Location's value contains CR, LF or NUL",
                "/ok 200 completed",
            ])
        }
    }

    func testAnEditedFileIsServedFreshOverTheWire() async throws {
        let directory = try makeTemporaryDirectory("fresh")
        let file = directory.appendingPathComponent("note.txt")
        try Data("one".utf8).write(to: file)
        let stubs = StubRegistry()
        stubs.stub(.path("/note.txt"), named: "note", response: .file(file))
        try await withServer(stubs) { server in
            let url = server.baseURL.appendingPathComponent("note.txt").absoluteString
            XCTAssertEqual(try curl([url]).text, "one")
            XCTAssertEqual(try curl([url]).text, "one")
            try Data("three".utf8).write(to: file)
            let fresh = try curl(["--include", url])
            XCTAssertTrue(fresh.text.contains("Content-Length: 5\r\n"), fresh.text)
            XCTAssertTrue(fresh.text.hasSuffix("\r\n\r\nthree"), fresh.text)
        }
    }
}
