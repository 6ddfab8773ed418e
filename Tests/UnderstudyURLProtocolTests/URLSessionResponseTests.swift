import Foundation
import Understudy
import UnderstudyURLProtocol
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Every response kind through a real URLSession.
final class URLSessionResponseTests: XCTestCase {
    let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 7, count: 56))

    func testCompletionHandlerDataTaskGetsStatusHeadersAndBody() async {
        let stubs = StubRegistry()
        stubs.stub(.host("img.example.com") && .path("/teapot"), named: "teapot",
                   response: .text("short and stout").status(418).headers(["X-Pot": "yes", "Cache-Control": "max-age=60"]))
        let session = URLSession(configuration: .stubbed(by: stubs))
        let (data, response, error) = await completionDataTask(session, URLRequest(url: url("https://img.example.com/teapot")))
        XCTAssertNil(error)
        XCTAssertEqual(response?.statusCode, 418)
        XCTAssertEqual(response?.value(forHTTPHeaderField: "X-Pot"), "yes")
        XCTAssertEqual(response?.value(forHTTPHeaderField: "Cache-Control"), "max-age=60")
        XCTAssertEqual(response?.value(forHTTPHeaderField: "Content-Type"), "text/plain; charset=utf-8")
        XCTAssertEqual(response?.value(forHTTPHeaderField: "X-Understudy-Stub"), "teapot")
        XCTAssertEqual(response?.value(forHTTPHeaderField: "Content-Length"), "15")
        XCTAssertEqual(data.map { String(decoding: $0, as: UTF8.self) }, "short and stout")
        XCTAssertEqual(stubs.journal.count, 1)
        XCTAssertEqual(stubs.journal.interactions.first?.stubName, "teapot")
        XCTAssertEqual(stubs.journal.interactions.first?.status, 418)
        XCTAssertEqual(stubs.journal.interactions.first?.bodyBytesSent, 15)
        XCTAssertEqual(stubs.journal.interactions.first?.transport, .inProcess)
    }

    func testAsyncDataForRequestGetsJSON() async throws {
        let stubs = StubRegistry()
        stubs.stub(.path("/api/cats") && .method("POST") && .jsonBody(["name": "Tom"]),
                   response: .json(["id": 7, "name": "Tom"]).status(201))
        var request = URLRequest(url: url("http://api.example.com/api/cats"))
        request.httpMethod = "POST"
        request.httpBody = Data(#"{ "name" : "Tom" }"#.utf8)
        let (data, response) = try await URLSession(configuration: .stubbed(by: stubs)).data(for: request)
        let http = try XCTUnwrap(response as? HTTPURLResponse)
        XCTAssertEqual(http.statusCode, 201)
        XCTAssertEqual(http.value(forHTTPHeaderField: "Content-Type"), "application/json")
        XCTAssertEqual(try JSONValue(parsing: data), ["id": 7, "name": "Tom"])
        XCTAssertEqual(stubs.journal.interactions.first?.request.body, request.httpBody)
    }

    #if canImport(FoundationNetworking)
    /// corelibs gives download tasks only files its own HTTP protocol writes; the stub says so
    /// instead of handing back no file (completion handler) or crashing (delegate).
    func testDownloadTaskFailsWithAClearErrorOnLinux() async throws {
        let stubs = StubRegistry()
        stubs.stub(.pathExtension("png"), response: .data(png))
        let session = URLSession(configuration: .stubbed(by: stubs))
        let error: URLError? = await withCheckedContinuation { continuation in
            session.downloadTask(with: url("https://img.example.com/cat.png")) { location, _, error in
                XCTAssertNil(location)
                continuation.resume(returning: error as? URLError)
            }.resume()
        }
        XCTAssertEqual(error?.code, .cannotCreateFile)
        XCTAssertEqual(error?.localizedDescription, """
            Understudy cannot answer download tasks in-process on Linux: swift-corelibs-foundation gives a download task \
            only a file written by its own HTTP protocol. Use a data task, or serve the stubs with StubServer.
            """)
        do {
            _ = try await session.download(from: url("https://img.example.com/cat.png"))
            XCTFail("expected the download to fail")
        } catch let error as URLError {
            XCTAssertEqual(error.code, .cannotCreateFile)
        }
    }
    #else
    func testDownloadTaskWritesTheBodyToAFile() async throws {
        let stubs = StubRegistry()
        stubs.stub(.pathExtension("png"), response: .data(png))
        let (location, response) = try await URLSession(configuration: .stubbed(by: stubs)).download(from: url("https://img.example.com/cat.png"))
        XCTAssertEqual((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type"), "image/png")
        XCTAssertEqual(try Data(contentsOf: location), png)
    }
    #endif

    func testFileResponseSniffsImageTypeFromBytesNotName() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let misnamed = directory.appendingPathComponent("really-a-png.webp")
        try png.write(to: misnamed)
        let notes = directory.appendingPathComponent("notes.txt")
        try Data("hello".utf8).write(to: notes)
        let stubs = StubRegistry()
        stubs.stub(.path("/a.webp"), response: .file(misnamed))
        stubs.stub(.path("/notes"), response: .file(notes))
        stubs.stub(.path("/missing"), named: "missing", response: .file(directory.appendingPathComponent("nope.png")))
        let session = URLSession(configuration: .stubbed(by: stubs))
        let (imageData, image) = try await session.data(from: url("http://x.test/a.webp"))
        XCTAssertEqual(imageData, png)
        XCTAssertEqual((image as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type"), "image/png")
        let (_, text) = try await session.data(from: url("http://x.test/notes"))
        XCTAssertEqual((text as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type"), "text/plain; charset=utf-8")
        let (body, missing) = try await session.data(from: url("http://x.test/missing"))
        XCTAssertEqual((missing as? HTTPURLResponse)?.statusCode, 500)
        XCTAssertTrue(String(decoding: body, as: UTF8.self).hasPrefix("cannot read file \(directory.path)/nope.png"))
        XCTAssertEqual(stubs.journal.interactions.last?.outcome.description.hasPrefix("failed: cannot read file"), true)
    }

    func testHeadGetsHeadersWithoutBodyAndCountsAsAUse() async throws {
        let stubs = StubRegistry()
        stubs.stub(.method("GET") && .path("/a.png"), named: "a", times: 2, response: .data(png))
        var head = URLRequest(url: url("http://x.test/a.png"))
        head.httpMethod = "HEAD"
        let session = URLSession(configuration: .stubbed(by: stubs, unmatched: .notFound))
        let (data, response) = try await session.data(for: head)
        XCTAssertEqual(data.count, 0)
        XCTAssertEqual((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Length"), String(png.count))
        XCTAssertEqual(stubs.journal.interactions.first?.bodyBytesSent, 0)
        let (_, second) = try await session.data(from: url("http://x.test/a.png"))
        XCTAssertEqual((second as? HTTPURLResponse)?.statusCode, 200)
        let (_, third) = try await session.data(from: url("http://x.test/a.png"))
        XCTAssertEqual((third as? HTTPURLResponse)?.statusCode, 404, "times: 2 counted the HEAD and the GET")
    }

    func testSequenceServesInOrderAndTheLastRepeats() async throws {
        let stubs = StubRegistry()
        stubs.stub(.path("/flaky"), responses: [.status(503), .status(500), .text("ok")])
        let session = URLSession(configuration: .stubbed(by: stubs))
        var statuses: [Int] = []
        for _ in 0..<5 {
            let (_, response) = try await session.data(from: url("http://x.test/flaky"))
            statuses.append((response as? HTTPURLResponse)?.statusCode ?? -1)
        }
        XCTAssertEqual(statuses, [503, 500, 200, 200, 200])
    }

    func testClosureStubSeesTheRequestAndAThrowIsA500WithTheReason() async throws {
        struct Refused: Error, CustomStringConvertible { var description: String { "no cats on Sundays" } }
        let stubs = StubRegistry()
        stubs.stub(.pathPrefix("/echo/"), named: "echo") { request in
            .text("\(request.method) \(request.path) w=\(request.queryItems.first { $0.name == "w" }?.value ?? "-")")
        }
        stubs.stub(.path("/refuse"), named: "refuse") { _ in throw Refused() }
        let session = URLSession(configuration: .stubbed(by: stubs))
        let (data, _) = try await session.data(from: url("http://x.test/echo/cat.png?w=200"))
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "GET /echo/cat.png w=200")
        let (body, response) = try await session.data(from: url("http://x.test/refuse"))
        XCTAssertEqual((response as? HTTPURLResponse)?.statusCode, 500)
        XCTAssertEqual(String(decoding: body, as: UTF8.self), "stub \"refuse\" failed: no cats on Sundays")
        XCTAssertEqual(stubs.journal.interactions.last?.outcome, .failed("stub \"refuse\" failed: no cats on Sundays"))
    }

    func testPrecedenceThroughASession() async throws {
        let stubs = StubRegistry()
        stubs.stub(.pathExtension("png"), named: "any-png", priority: 1, response: .text("priority"))
        stubs.stub(.path("/a.png"), named: "exact", response: .text("exact"))
        stubs.stub(.path("/b.png"), named: "b-high", priority: 1, response: .text("b-high"))
        let session = URLSession(configuration: .stubbed(by: stubs))
        let (a, _) = try await session.data(from: url("http://x.test/a.png"))
        XCTAssertEqual(String(decoding: a, as: UTF8.self), "priority", "higher priority wins over a later, more exact stub")
        let (b, _) = try await session.data(from: url("http://x.test/b.png"))
        XCTAssertEqual(String(decoding: b, as: UTF8.self), "b-high", "among equal priorities the last added wins")
    }
}
