import Foundation
import Understudy
import UnderstudyClient
import UnderstudyImages
import UnderstudyXCTest
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `StubServerClient` against a real `understudy serve` process, as a UI test drives the server
/// on the host: every kind of stub that crosses the wire, each answering a URLSession request;
/// the journal asserted as a local one is; what cannot cross refused before anything is sent.
final class StubServerClientTests: XCTestCase {
    private var server: StartedUnderstudy!
    private var client: StubServerClient!
    private var base: URL!
    private let session = URLSession(configuration: .ephemeral)

    override func setUpWithError() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("understudy-client-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        server = try startUnderstudy(["serve", directory.path, "--port", "0", "--log", "quiet"])
        base = URL(string: "http://127.0.0.1:\(server.port)")!
        client = StubServerClient(baseURL: base)
    }

    override func tearDown() {
        if let server, server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) }
        session.invalidateAndCancel()
        super.tearDown()
    }

    private func get(_ path: String) async throws -> (Data, HTTPURLResponse) {
        let (data, response) = try await session.data(from: URL(string: path, relativeTo: base)!)
        return (data, try XCTUnwrap(response as? HTTPURLResponse))
    }

    func testEveryKindOfStubThatCrossesTheWireAnswersAURLSessionRequest() async throws {
        let fixtures = FileManager.default.temporaryDirectory.appendingPathComponent("client-fixtures-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: fixtures, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: fixtures) }
        let note = fixtures.appendingPathComponent("note.txt")
        try Data("a file on the test's side\n".utf8).write(to: note)
        let photo = try ImageGenerator.generate(width: 30, height: 20, pattern: .photo)
        let photoFile = fixtures.appendingPathComponent("photo.png")
        try photo.pngData().write(to: photoFile)

        // Files and data travel as their bytes; the server never sees the test's files.
        try await client.stub(.path("/note.txt"), named: "file", response: .file(note))
        var (data, response) = try await get("/note.txt")
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "a file on the test's side\n")
        XCTAssertEqual(response.value(forHTTPHeaderField: "Content-Type"), "text/plain; charset=utf-8")
        XCTAssertEqual(response.value(forHTTPHeaderField: "X-Understudy-Stub"), "file")

        try await client.stub(.path("/blob") && .method("GET"), named: "data", response: .data(Data([1, 2, 3]), contentType: "application/x-blob").headers(["X-Kind": "blob"]))
        (data, response) = try await get("/blob")
        XCTAssertEqual(data, Data([1, 2, 3]))
        XCTAssertEqual(response.value(forHTTPHeaderField: "Content-Type"), "application/x-blob")
        XCTAssertEqual(response.value(forHTTPHeaderField: "X-Kind"), "blob")

        try await client.stub(.path("/feed.json") && .query("page", "2"), named: "json", response: .json(["hits": 3, "tags": ["a"]]))
        (data, response) = try await get("/feed.json?page=2")
        XCTAssertEqual(try JSONValue(parsing: data), ["hits": 3, "tags": ["a"]])
        XCTAssertEqual(response.value(forHTTPHeaderField: "Content-Type"), "application/json")

        try await client.stub(.path("/old.txt"), named: "redirect", response: .redirect(to: "/note.txt", status: 301))
        (data, response) = try await get("/old.txt")
        XCTAssertEqual(response.url?.path, "/note.txt", "URLSession followed the redirect")
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "a file on the test's side\n")

        try await client.stub(.path("/teapot"), response: .status(418), named: "status")
        (_, response) = try await get("/teapot")
        XCTAssertEqual(response.statusCode, 418)

        try await client.stub(.path("/reset"), named: "fault", response: .failure(.connectionReset))
        do {
            _ = try await get("/reset")
            XCTFail("a connection reset answered")
        } catch let error as URLError {
            XCTAssertTrue([.networkConnectionLost, .badServerResponse, .cannotParseResponse].contains(error.code), "\(error)")
        }

        try await client.stub(.path("/slow"), named: "delay", response: .text("late").delayed(by: .milliseconds(400)))
        var started = ContinuousClock.now
        (data, _) = try await get("/slow")
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "late")
        XCTAssertGreaterThanOrEqual(ContinuousClock.now - started, .milliseconds(400))

        try await client.stub(
            .path("/edge"), named: "network",
            response: .text(String(repeating: "x", count: 2_000)).network(.custom(latency: .milliseconds(300), rate: .bytesPerSecond(10_000)))
        )
        started = ContinuousClock.now
        (data, _) = try await get("/edge")
        XCTAssertEqual(data.count, 2_000)
        XCTAssertGreaterThanOrEqual(ContinuousClock.now - started, .milliseconds(300), "the profile's latency, then 2 KB at 10 KB/s")

        try await client.stub(.path("/checker.png"), named: "generated", response: .image(.generated(width: 16, height: 8, pattern: .checkerboard), as: .png))
        (data, response) = try await get("/checker.png")
        XCTAssertEqual(response.value(forHTTPHeaderField: "Content-Type"), "image/png")
        XCTAssertEqual(try RGBAImage(decoding: data), try ImageGenerator.generate(width: 16, height: 8, pattern: .checkerboard))

        try await client.stub(.path("/photo.webp"), named: "transcoded", response: .image(.file(photoFile), as: .webpLossless))
        (data, response) = try await get("/photo.webp")
        XCTAssertEqual(response.value(forHTTPHeaderField: "Content-Type"), "image/webp")
        XCTAssertEqual(try RGBAImage(decoding: data), photo, "lossless WebP of the test's PNG, pixel for pixel")

        try await client.stub(.path("/gated.png"), named: "gate", response: .image(.file(photoFile), as: .png).paused(afterBytes: 100, gate: "hero"))
        let (gatedSession, gatedURL) = (session, base.appendingPathComponent("gated.png"))
        let gated = Task { try await gatedSession.data(from: gatedURL) }
        try await client.wait(for: .path("/gated.png"), count: 1, timeout: .seconds(5))
        try await Task.sleep(for: .milliseconds(200))
        let held = try await client.journal().interactions.last?.outcome
        XCTAssertEqual(held, .inFlight, "held at the gate")
        try await client.releaseGate("hero")
        (data, _) = try await gated.value
        XCTAssertEqual(try RGBAImage(decoding: data), photo)

        let journal = try await client.journal()
        XCTAssertRequested(journal, .path("/note.txt"), times: 2)
        XCTAssertRequested(journal, .path("/feed.json") && .query("page", "2"), times: 1)
        XCTAssertNotRequested(journal, .path("/nothing"))
        XCTAssertNoUnmatchedRequests(journal)
        XCTAssertRequestOrder(journal, [.path("/old.txt"), .path("/note.txt"), .path("/teapot")])
        XCTAssertEqual(journal.interactions.first { $0.request.url.path == "/teapot" }?.status, 418)
        XCTAssertEqual(journal.interactions.first { $0.request.url.path == "/reset" }?.outcome, .fault(.connectionReset))
        let missing = try XCTUnwrap(FailureMessages.requested(journal, .path("/never.png"), times: 1))
        XCTAssertTrue(missing.hasPrefix("expected 1 request matching "), missing)
        XCTAssertTrue(missing.contains("got 0\nRequests made:\n  1. GET"), missing)
    }

    func testAServerWideNetworkRemovingStubsResetAndUnmatchedRequests() async throws {
        try await client.stub(.path("/a"), named: "a", response: .text("a"))
        try await client.setNetwork(.custom(latency: .milliseconds(300), rate: .bytesPerSecond(1_000_000)))
        var started = ContinuousClock.now
        _ = try await get("/a")
        XCTAssertGreaterThanOrEqual(ContinuousClock.now - started, .milliseconds(300))
        try await client.setNetwork(nil)
        started = ContinuousClock.now
        _ = try await get("/a")
        XCTAssertLessThan(ContinuousClock.now - started, .milliseconds(300))

        try await client.removeStub(named: "a")
        let (_, response) = try await get("/a")
        XCTAssertEqual(response.statusCode, 404)
        let journal = try await client.journal()
        XCTAssertEqual(journal.unmatched.map(\.request.url.path), ["/a"])
        XCTAssertEqual(journal.unmatched.first?.outcome, .unmatched)
        let message = try XCTUnwrap(FailureMessages.noUnmatchedRequests(journal))
        XCTAssertTrue(message.contains("GET http://127.0.0.1:\(server.port)/a"), message)

        do {
            try await client.removeStub(named: "a")
            XCTFail("removed a stub twice")
        } catch let error as StubServerClientError {
            XCTAssertEqual(error.status, 404)
            XCTAssertTrue(error.description.contains("DELETE \(base.absoluteString)/__admin/stubs/a answered 404"), error.description)
        }

        try await client.reset()
        let count = try await client.journal().count
        XCTAssertEqual(count, 0)
    }

    func testWhatCannotCrossTheWireIsRefusedByNameBeforeAnythingIsSent() async throws {
        let refusals: [(RequestMatcher, StubResponse, String)] = [
            (.custom("isRetina") { _ in true }, .text("x"), #"the matcher .custom("isRetina") cannot cross the wire: a closure runs only in this process"#),
            (!.path("/a"), .text("x"), "cannot cross the wire: a stub file has no `!`"),
            (.path("/a") || .host("b.example"), .text("x"), "cannot cross the wire: a stub file says `||` only between methods or between extensions"),
            (.path("/a"), .failure(.urlError(.timedOut)), "the fault url-error(-1001) cannot cross the wire"),
        ]
        for (matcher, response, expected) in refusals {
            do {
                try await client.stub(matcher, named: "refused", response: response)
                XCTFail("sent \(matcher)")
            } catch let error as StubServerClientError {
                XCTAssertTrue(error.description.hasPrefix("cannot send stub 'refused': "), error.description)
                XCTAssertTrue(error.description.contains(expected), error.description)
                XCTAssertNil(error.status, "refused before anything was sent")
            }
        }
        let (stubs, _) = try await get("/__admin/stubs")
        let listed = try JSONSerialization.jsonObject(with: stubs) as? [String: Any]
        XCTAssertEqual((listed?["stubs"] as? [Any])?.count, 0, String(decoding: stubs, as: UTF8.self))
        // `||` of methods is one key, and crosses.
        try await client.stub(.path("/m") && (.method("PUT") || .method("POST")), named: "methods", response: .status(204))
        var request = URLRequest(url: base.appendingPathComponent("m"))
        request.httpMethod = "POST"
        let (_, response) = try await session.data(for: request)
        XCTAssertEqual((response as? HTTPURLResponse)?.statusCode, 204)
    }
}
