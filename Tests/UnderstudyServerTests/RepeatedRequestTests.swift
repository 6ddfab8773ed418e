import Foundation
import Understudy
import UnderstudyServer
import XCTest

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
    }
}
