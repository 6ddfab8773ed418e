import Foundation
import NIOConcurrencyHelpers
import Understudy
import UnderstudyServer
import XCTest
import UnderstudyTestSupport

/// One keep-alive connection asking for the same URL again and again, which the server answers
/// without matching anew while nothing changed: every change must still show at once.
final class RepeatedRequestTests: XCTestCase {
    func testAConnectionRepeatingARequestSeesEveryChangeAndEveryRequestIsJournaled() async throws {
        let directory = try makeTemporaryDirectory("repeat")
        let file = directory.appendingPathComponent("a.txt")
        try Data("one-END".utf8).write(to: file)
        let stubs = StubRegistry()
        stubs.stub(.path("/a.txt"), named: "file", response: .file(file))

        try await withServer(stubs) { server in
            let socket = try RawSocket(port: server.port)
            func ask() -> String {
                socket.send("GET /a.txt HTTP/1.1\r\nHost: img.test\r\nAccept: */*\r\n\r\n")
                let received = socket.read(until: "-END")
                XCTAssertEqual(received.ending, .satisfied, "answered on the kept-alive connection: \(received)")
                let answer = received.text
                let stub = answer.split(separator: "\r\n").first { $0.hasPrefix("X-Understudy-Stub: ") }?.dropFirst(19) ?? "-"
                return "\(stub) \(answer.components(separatedBy: "\r\n\r\n").last ?? "")"
            }
            XCTAssertEqual(ask(), "file one-END")
            XCTAssertEqual(ask(), "file one-END")

            try Data("two, longer-END".utf8).write(to: file)
            XCTAssertEqual(ask(), "file two, longer-END", "the edited file")

            stubs.stub(.path("/a.txt"), named: "override", priority: 5, response: .text("override-END"))
            XCTAssertEqual(ask(), "override override-END", "a stub added since")
            XCTAssertEqual(ask(), "override override-END")
            stubs.removeStub(named: "override")
            XCTAssertEqual(ask(), "file two, longer-END", "and removed again")

            stubs.stub(.path("/a.txt"), named: "once", priority: 5, times: 1, response: .text("once-END"))
            XCTAssertEqual(ask(), "once once-END")
            XCTAssertEqual(ask(), "file two, longer-END", "a stub with times: 1 used up")

            try FileManager.default.removeItem(at: file)
            socket.send("GET /a.txt HTTP/1.1\r\nHost: img.test\r\nAccept: */*\r\n\r\n")
            let received = socket.read(until: "cannot read file")
            XCTAssertEqual(received.ending, .satisfied, "\(received)")
            let failure = received.text
            XCTAssertTrue(failure.hasPrefix("HTTP/1.1 500 "), "a deleted file fails, never served from memory: \(failure)")
        }
        XCTAssertEqual(stubs.journal.count(matching: .path("/a.txt")), 9, "every request journaled")
        XCTAssertEqual(stubs.useCounts["file"], 6, "and counted as a use of the stub that answered it")
        for interaction in stubs.journal.interactions {
            XCTAssertLessThanOrEqual(
                interaction.timing.send + interaction.timing.wait, interaction.duration,
                "request \(interaction.id): the parts of its time fall within its duration (HAR's time is their sum)"
            )
        }
    }

    /// A client asking for the same range, or revalidating the same tag, over and over on one
    /// connection: what the request selects is kept with the repeat, and must be selected anew
    /// when the file changes under it.
    func testARepeatedRangeOrRevalidationIsSelectedAnewWhenTheFileChanges() async throws {
        let directory = try makeTemporaryDirectory("repeat-range")
        let file = directory.appendingPathComponent("a.bin")
        try Data("0123456789-END".utf8).write(to: file)
        let stubs = StubRegistry()
        stubs.stub(.path("/a.bin"), named: "file", response: .file(file))

        try await withServer(stubs) { server in
            let socket = try RawSocket(port: server.port)
            func ask(_ field: String, until marker: String = "-END") -> (head: [String], body: String) {
                socket.send("GET /a.bin HTTP/1.1\r\nHost: img.test\r\n\(field)\r\n\r\n")
                let received = socket.read(until: marker)
                XCTAssertEqual(received.ending, .satisfied, "answered on the kept-alive connection: \(received)")
                let parts = received.text.components(separatedBy: "\r\n\r\n")
                return (parts[0].components(separatedBy: "\r\n"), parts.dropFirst().joined(separator: "\r\n\r\n"))
            }
            func field(_ name: String, of head: [String]) -> String? {
                head.first { $0.lowercased().hasPrefix(name.lowercased() + ": ") }.map { String($0.dropFirst(name.count + 2)) }
            }

            // The last four bytes, asked for again and again.
            for _ in 1...3 {
                let (head, body) = ask("Range: bytes=-4")
                XCTAssertEqual(head.first, "HTTP/1.1 206 Partial Content")
                XCTAssertEqual(field("Content-Range", of: head), "bytes 10-13/14")
                XCTAssertEqual(body, "-END")
            }
            try Data("abcdefghij, and twenty more-END".utf8).write(to: file)
            for _ in 1...2 {
                let (head, body) = ask("Range: bytes=-4")
                XCTAssertEqual(field("Content-Range", of: head), "bytes 27-30/31", "the edited file's last four bytes")
                XCTAssertEqual(body, "-END")
            }
            try Data("-END".utf8).write(to: file)
            let (head, body) = ask("Range: bytes=10-", until: "\r\n\r\n")
            XCTAssertEqual(head.first, "HTTP/1.1 416 Range Not Satisfiable", "the range is past the shortened file's end")
            XCTAssertEqual(field("Content-Range", of: head), "bytes */4")
            XCTAssertEqual(body, "")

            // Revalidation with the tag the client was given, repeated, then after an edit.
            let tag = try XCTUnwrap(field("ETag", of: ask("Accept: */*").head))
            for _ in 1...3 {
                XCTAssertEqual(ask("If-None-Match: \(tag)", until: "\r\n\r\n").head.first, "HTTP/1.1 304 Not Modified")
            }
            try Data("edited-END".utf8).write(to: file)
            let (edited, editedBody) = ask("If-None-Match: \(tag)")
            XCTAssertEqual(edited.first, "HTTP/1.1 200 OK", "the old tag no longer matches")
            XCTAssertEqual(editedBody, "edited-END")
        }
        XCTAssertEqual(stubs.journal.interactions.map(\.status), [206, 206, 206, 206, 206, 416, 200, 304, 304, 304, 200])
    }

    /// A read that finishes a head begun in an earlier read is not the request by itself: its
    /// bytes sent again alone are a different request, answered and journaled as such.
    func testAHeadFinishedInALaterReadIsNotTakenForTheNextRequestOfTheSameBytes() async throws {
        let stubs = Self.textStub()
        try await withServer(stubs) { server in
            let socket = try RawSocket(port: server.port)
            // The first read ends inside a header value that the second read's bytes complete.
            socket.send("GET /a.txt HTTP/1.1\r\nX-Begun-Earlier: ")
            try await Task.sleep(for: .milliseconds(100))
            socket.send(Self.request)
            XCTAssertEqual(socket.read(until: "a-END").ending, .satisfied)
            for _ in 1...3 {
                socket.send(Self.request)
                XCTAssertEqual(socket.read(until: "a-END").ending, .satisfied)
            }
        }
        let headers = stubs.journal.interactions.map { $0.request.headers["X-Begun-Earlier"] }
        XCTAssertEqual(headers, ["GET /a.txt HTTP/1.1", nil, nil, nil], "only the first request had the header")
        XCTAssertEqual(stubs.journal.interactions.map { $0.request.headers["Host"] }, Array(repeating: "img.test", count: 4))
    }

    /// Two repeats in one read (pipelined) are two requests, each answered and journaled, and a
    /// repeat after them is answered as before.
    func testPipelinedRepeatsInOneReadAreEachAnsweredAndJournaled() async throws {
        let stubs = Self.textStub()
        try await withServer(stubs) { server in
            let socket = try RawSocket(port: server.port)
            socket.send(Self.request)
            XCTAssertEqual(socket.read(until: "a-END").ending, .satisfied)
            socket.send(Self.request + Self.request)
            let both = socket.read(occurrences: 2, of: "a-END")
            XCTAssertEqual(both.ending, .satisfied, "\(both)")
            XCTAssertEqual(both.text.components(separatedBy: "HTTP/1.1 200 OK").count - 1, 2, "\(both)")
            socket.send(Self.request)
            XCTAssertEqual(socket.read(until: "a-END").ending, .satisfied)
        }
        XCTAssertEqual(stubs.journal.count(matching: .path("/a.txt")), 4)
        XCTAssertEqual(stubs.useCounts["text"], 4)
    }

    /// A connection whose requests stop repeating (a feed of different URLs) and then repeat
    /// again, and change again: every request gets its own answer and is journaled, whether
    /// the shortcut is armed, backing off, or arming again.
    func testRequestsThatStopAndStartRepeatingAreEachAnsweredAndJournaled() async throws {
        let stubs = StubRegistry()
        for n in 0..<8 {
            stubs.stub(.path("/\(n).txt"), named: "s\(n)", response: .text("body-\(n)-END"))
        }
        let order = Array(0..<8) + Array(repeating: 3, count: 70) + Array(0..<8) + Array(repeating: 5, count: 40) + [6]
        try await withServer(stubs) { server in
            let socket = try RawSocket(port: server.port)
            for n in order {
                socket.send("GET /\(n).txt HTTP/1.1\r\nHost: img.test\r\n\r\n")
                let received = socket.read(until: "-END")
                XCTAssertEqual(received.ending, .satisfied, "\(received)")
                XCTAssertTrue(received.text.hasSuffix("body-\(n)-END"), "request for \(n): \(received.text)")
            }
        }
        XCTAssertEqual(stubs.journal.interactions.map(\.stubName), order.map { "s\($0)" })
        XCTAssertEqual(stubs.useCounts["s3"], 72)
    }

    /// A `.custom` matcher may read state other than the request: flipping it between two
    /// identical requests on one keep-alive connection changes the answer, in both directions
    /// (a custom stub starting to match above a plain one, and the custom stub that answered
    /// ceasing to match).
    func testACustomMatchersChangedVerdictShowsOnTheNextIdenticalRequestOverKeepAlive() async throws {
        let (stubs, loggedIn) = Self.loginStubs()
        try await withServer(stubs) { server in
            let socket = try RawSocket(port: server.port)
            func ask() -> String { Self.ask(socket) }
            XCTAssertEqual([ask(), ask()], ["guest-END", "guest-END"])
            loggedIn.withLockedValue { $0 = true }
            XCTAssertEqual([ask(), ask()], ["member-END", "member-END"], "the flag flipped between two identical requests")
            loggedIn.withLockedValue { $0 = false }
            XCTAssertEqual(ask(), "guest-END", "and flipped back")
        }
        XCTAssertEqual(stubs.useCounts, ["guest": 3, "member": 2])
    }

    /// The same over HTTP/2 (h2c): identical HEADERS blocks on one connection.
    func testACustomMatchersChangedVerdictShowsOnTheNextIdenticalRequestOverHTTP2() async throws {
        let (stubs, loggedIn) = Self.loginStubs()
        try await withServer(stubs) { server in
            let client = try await HTTP2TestClient.connect(port: server.port)
            func ask() async throws -> String {
                let response = try await client.send("/a.txt", authority: "img.test")
                XCTAssertEqual(response.status, "200")
                return String(decoding: response.body, as: UTF8.self)
            }
            let before = [try await ask(), try await ask()]
            XCTAssertEqual(before, ["guest-END", "guest-END"])
            loggedIn.withLockedValue { $0 = true }
            let after = [try await ask(), try await ask()]
            XCTAssertEqual(after, ["member-END", "member-END"], "the flag flipped between two identical requests")
            loggedIn.withLockedValue { $0 = false }
            let back = try await ask()
            XCTAssertEqual(back, "guest-END", "and flipped back")
            await client.close()
        }
        XCTAssertEqual(stubs.useCounts, ["guest": 3, "member": 2])
    }

    /// A scenario moves between identical requests: each answer is the one its state gives,
    /// and a state set from outside shows on the next.
    func testAScenarioStepShowsOnTheNextIdenticalRequestOverKeepAlive() async throws {
        let stubs = StubRegistry()
        stubs.add(Stub(named: "empty", matching: .path("/a.txt"), response: .text("empty-END")).inScenario("cart", when: Scenario.startedState, then: "full"))
        stubs.add(Stub(named: "full", matching: .path("/a.txt"), response: .text("full-END")).inScenario("cart", when: "full"))
        try await withServer(stubs) { server in
            let socket = try RawSocket(port: server.port)
            func ask() -> String { Self.ask(socket) }
            XCTAssertEqual([ask(), ask(), ask()], ["empty-END", "full-END", "full-END"])
            XCTAssertTrue(stubs.setScenario("cart", to: Scenario.startedState))
            XCTAssertEqual([ask(), ask()], ["empty-END", "full-END"], "set back between two identical requests")
        }
        XCTAssertEqual(stubs.useCounts, ["empty": 2, "full": 3])
    }

    /// Sends ``request`` on `socket`, kept alive, and returns the body of its answer.
    private static func ask(_ socket: RawSocket, file: StaticString = #filePath, line: UInt = #line) -> String {
        socket.send(request)
        let received = socket.read(until: "-END")
        XCTAssertEqual(received.ending, .satisfied, "\(received)", file: file, line: line)
        return received.text.components(separatedBy: "\r\n\r\n").last ?? ""
    }

    /// A plain stub for `/a.txt`, and above it one that also needs a "logged in" flag.
    private static func loginStubs() -> (StubRegistry, NIOLockedValueBox<Bool>) {
        let loggedIn = NIOLockedValueBox(false)
        let stubs = StubRegistry()
        stubs.stub(.path("/a.txt"), named: "guest", response: .text("guest-END"))
        stubs.stub(.path("/a.txt") && .custom("logged in") { _ in loggedIn.withLockedValue { $0 } }, named: "member", priority: 1, response: .text("member-END"))
        return (stubs, loggedIn)
    }

    /// The request the shortcut tests repeat, and the stub that answers it.
    private static let request = "GET /a.txt HTTP/1.1\r\nHost: img.test\r\n\r\n"

    private static func textStub() -> StubRegistry {
        let stubs = StubRegistry()
        stubs.stub(.path("/a.txt"), named: "text", response: .text("a-END"))
        return stubs
    }
}
