import Foundation
import Understudy
import UnderstudyImages
import UnderstudyServer
import XCTest
import UnderstudyTestSupport

/// The dashboard's paths in the admin API, socket-free, and its event stream and the 404
/// pointer to it over real sockets.
final class DashboardAPITests: XCTestCase {
    private func send(_ admin: AdminAPI, _ method: String, _ target: String, headers: HeaderFields = [:]) async -> AdminResponse {
        await admin.handle(AdminRequest(method: method, target: target, headers: headers))
    }

    private let policy = "default-src 'self'; img-src 'self' blob:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    func testThePageScriptAndStyleAreServedWithAPolicyThatAllowsOnlyThisServer() async throws {
        // With a token: the page and its assets hold no data, so they load without it.
        let admin = AdminAPI(registry: StubRegistry(), token: "t0ken")
        for (path, type) in [
            ("/__admin/", "text/html; charset=utf-8"), ("/__admin", "text/html; charset=utf-8"),
            ("/__admin/dashboard.js", "text/javascript; charset=utf-8"), ("/__admin/dashboard.css", "text/css; charset=utf-8"),
            ("/__admin/favicon.svg", "image/svg+xml"),
        ] {
            let response = await send(admin, "GET", path)
            XCTAssertEqual(response.status, 200, path)
            XCTAssertEqual(response.headers["Content-Type"], type, path)
            XCTAssertEqual(response.headers["Content-Security-Policy"], policy, path)
            XCTAssertEqual(response.headers["X-Content-Type-Options"], "nosniff", path)
            XCTAssertEqual(response.headers["Content-Length"], String(response.body.count), path)
            XCTAssertGreaterThan(response.body.count, 100, path)
        }
        let page = String(decoding: await send(admin, "GET", "/__admin/").body, as: UTF8.self)
        XCTAssertTrue(page.contains(#"<script src="/__admin/dashboard.js" defer></script>"#))
        XCTAssertFalse(page.contains("<script>"), "no inline script: the policy would block it")
        XCTAssertFalse(page.contains("style="), "no inline style either")
        for external in ["http://", "https://", "//cdn"] where page.contains(external) {
            XCTFail("the page loads nothing from elsewhere, but names \(external)")
        }

        let post = await send(admin, "POST", "/__admin/")
        XCTAssertEqual(post.status, 405)
        XCTAssertEqual(post.headers["Allow"], "GET")
        let query = await send(admin, "GET", "/__admin/dashboard.js?v=2")
        XCTAssertEqual(String(decoding: query.body, as: UTF8.self), #"{"error":"unknown query parameter 'v'; /__admin/dashboard.js takes no query parameters","field":"v"}"# + "\n")
    }

    /// Each asset is its file in Sources/UnderstudyServer/Admin/Dashboard/, byte for byte, and
    /// the page names the others: a file left out of Package.swift's resources, emptied or
    /// renamed fails here.
    func testEachAssetIsItsFileInTheRepositoryAndThePageNamesTheOthers() async throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/UnderstudyServer/Admin/Dashboard")
        let files = ["/__admin/": "dashboard.html", "/__admin/dashboard.js": "dashboard.js",
                     "/__admin/dashboard.css": "dashboard.css", "/__admin/favicon.svg": "favicon.svg"]
        XCTAssertEqual(Set(try FileManager.default.contentsOfDirectory(atPath: folder.path)), Set(files.values), "every file in the folder is served")
        let admin = AdminAPI(registry: StubRegistry(), token: nil)
        for (path, file) in files.sorted(by: { $0.key < $1.key }) {
            let expected = try Data(contentsOf: folder.appendingPathComponent(file))
            XCTAssertFalse(expected.isEmpty, file)
            let served = await send(admin, "GET", path)
            XCTAssertEqual(served.status, 200, path)
            XCTAssertEqual(served.body, expected, "\(path) is \(file) as it is in the repository")
        }
        let page = String(decoding: await send(admin, "GET", "/__admin/").body, as: UTF8.self)
        for reference in [
            #"<script src="/__admin/dashboard.js" defer></script>"#,
            #"<link rel="stylesheet" href="/__admin/dashboard.css">"#,
            #"<link rel="icon" href="/__admin/favicon.svg" type="image/svg+xml">"#,
        ] {
            XCTAssertTrue(page.contains(reference), "the page has \(reference)")
        }
    }

    /// The page, pasted with a query (`?token=...`), is the page (which says the query is not
    /// read); the JSON API and the dashboard's data endpoints still refuse unknown parameters.
    func testThePageIgnoresAQueryAndTheAPIStillRefusesUnknownParameters() async throws {
        let admin = AdminAPI(registry: StubRegistry(), token: "t0ken")
        let page = await send(admin, "GET", "/__admin/")
        for target in ["/__admin/?token=t0ken", "/__admin?token=abc&x=1", "/__admin/?"] {
            let response = await send(admin, "GET", target)
            XCTAssertEqual(response.status, 200, target)
            XCTAssertEqual(response.headers["Content-Type"], "text/html; charset=utf-8", target)
            XCTAssertEqual(response.body, page.body, target)
        }
        XCTAssertTrue(String(decoding: page.body, as: UTF8.self).contains(#"<p id="query-note" class="note" hidden>This page reads nothing from its address"#))
        // Nor does the page ever answer JSON.
        let post = await send(admin, "POST", "/__admin/?token=t0ken")
        XCTAssertEqual(post.status, 405)
        XCTAssertEqual(post.headers["Content-Type"], "text/plain; charset=utf-8")
        XCTAssertEqual(post.headers["Allow"], "GET")
        XCTAssertEqual(String(decoding: post.body, as: UTF8.self), "method POST is not allowed on /__admin/; expected GET\n")
        let authorized: HeaderFields = ["Authorization": "Bearer t0ken"]
        for target in ["/__admin/requests?token=t0ken", "/__admin/events?token=t0ken", "/__admin/health?token=t0ken"] {
            let response = await send(admin, "GET", target, headers: authorized)
            XCTAssertEqual(response.status, 400, target)
            XCTAssertEqual(response.headers["Content-Type"], "application/json", target)
            XCTAssertTrue(String(decoding: response.body, as: UTF8.self).hasPrefix(#"{"error":"unknown query parameter 'token'"#), target)
        }
    }

    func testTheBodyEndpointServesACannedImageAndNeedsTheToken() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("understudy-body-\(UUID().uuidString).png")
        try ImageGenerator.generate(width: 7, height: 5, pattern: .gradient).pngData().write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let registry = StubRegistry()
        registry.stub(.path("/a.png"), named: "a", response: .file(file))
        registry.stub(.path("/made"), named: "made") { _ in .text("made") }
        try await withServer(registry) { server in
            _ = try curl(["\(server.baseURL.absoluteString)/a.png"])
            _ = try curl(["\(server.baseURL.absoluteString)/made"])
        }
        let admin = AdminAPI(registry: registry, token: "t0ken")
        let refused = await send(admin, "GET", "/__admin/requests/1/body")
        XCTAssertEqual(refused.status, 401)
        XCTAssertEqual(refused.headers["WWW-Authenticate"], #"Bearer realm="understudy admin""#)

        let authorized: HeaderFields = ["Authorization": "Bearer t0ken"]
        let body = await send(admin, "GET", "/__admin/requests/1/body", headers: authorized)
        XCTAssertEqual(body.status, 200)
        XCTAssertEqual(body.headers["Content-Type"], "image/png")
        XCTAssertEqual(body.headers["Content-Security-Policy"], "default-src 'none'; sandbox")
        let image = try RGBAImage(decoding: body.body)
        XCTAssertEqual([image.width, image.height], [7, 5])

        let closure = await send(admin, "GET", "/__admin/requests/2/body", headers: authorized)
        XCTAssertEqual(closure.status, 404)
        XCTAssertEqual(String(decoding: closure.body, as: UTF8.self), """
            {"error":"the body request 2 was sent is not kept; without keepsBodies the journal has only those of canned answers, images and transcoded bodies","field":"id"}

            """)
        let missing = await send(admin, "GET", "/__admin/requests/9/body", headers: authorized)
        XCTAssertEqual(String(decoding: missing.body, as: UTF8.self), #"{"error":"no request 9 in the journal (it holds 2)","field":"id"}"# + "\n")
        let events = await send(admin, "GET", "/__admin/events")
        XCTAssertEqual(events.status, 401, "the event stream needs the token too")
    }

    func testImageStubsBodiesAreRenderedAgainUnlessTheirFileChanged() async throws {
        try requireEncoding(.webp)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("understudy-again-\(UUID().uuidString).png")
        try ImageGenerator.generate(width: 9, height: 4, pattern: .checkerboard).pngData().write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let registry = StubRegistry()
        registry.stub(.path("/generated.webp"), named: "generated", response: .image(.generated(width: 13, height: 6, pattern: .gradient), as: .webp(quality: 80)))
        registry.stub(.path("/negotiated"), named: "negotiated", response: .image(.file(file), as: .negotiated))
        registry.stub(.path("/transcoded.webp"), named: "transcoded", response: .image(.file(file), as: .webpLossless))
        var sent: [String: Data] = [:]
        try await withServer(registry) { server in
            let base = server.baseURL.absoluteString
            sent["generated"] = try curl(["\(base)/generated.webp"]).stdout
            sent["negotiated"] = try curl(["-H", "Accept: image/webp,*/*", "\(base)/negotiated"]).stdout
            sent["transcoded"] = try curl(["\(base)/transcoded.webp"]).stdout
        }
        let admin = AdminAPI(registry: registry, token: nil)
        for (id, name, type) in [(1, "generated", "image/webp"), (2, "negotiated", "image/webp"), (3, "transcoded", "image/webp")] {
            let body = await send(admin, "GET", "/__admin/requests/\(id)/body")
            XCTAssertEqual(body.status, 200, name)
            XCTAssertEqual(body.headers["Content-Type"], type, name)
            XCTAssertEqual(body.body, sent[name], "\(name): the bytes the client got")
        }
        // The file behind the transcoded stub changes: rendering again would show another
        // picture, so the dashboard gets no body rather than a wrong one.
        try ImageGenerator.generate(width: 30, height: 30, pattern: .gradient).pngData().write(to: file)
        let changed = await send(admin, "GET", "/__admin/requests/3/body")
        XCTAssertEqual(changed.status, 404)
    }

    func testTheEventStreamSendsAnEventWhenARequestArrives() async throws {
        let registry = StubRegistry()
        registry.stub(.path("/a"), named: "a", response: .text("a"))
        try await withServer(registry) { server in
            let base = server.baseURL.absoluteString
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["curl", "--silent", "--no-buffer", "--max-time", "3", "--include", "\(base)/__admin/events"]
            let out = Pipe()
            process.standardOutput = out
            try process.run()
            // Once the stream has started (its first event is out), two requests change the journal.
            var seen = Data()
            let deadline = Date().addingTimeInterval(2)
            while !String(decoding: seen, as: UTF8.self).contains("data: 0\n\n"), Date() < deadline {
                seen.append(out.fileHandleForReading.availableData)
            }
            _ = try curl(["\(base)/a"])
            seen.append(out.fileHandleForReading.readDataToEndOfFile())
            process.waitUntilExit()
            let text = String(decoding: seen, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n")
            XCTAssertTrue(text.hasPrefix("HTTP/1.1 200 OK\n"), text)
            XCTAssertTrue(text.contains("\nContent-Type: text/event-stream\n"), text)
            XCTAssertFalse(text.lowercased().contains("content-length"), text)
            let body = try XCTUnwrap(text.components(separatedBy: "\n\n").dropFirst().joined(separator: "\n\n") as String?)
            // The journal opened and completed the request in one record: one change, version 1.
            XCTAssertEqual(body, "retry: 1000\nevent: journal\ndata: 0\n\nevent: journal\ndata: 1\n\n", text)
        }
    }

    func testA404ForABrowserPointsAtTheDashboardAndOtherClientsDoNotGetThePointer() async throws {
        let registry = StubRegistry()
        registry.stub(.path("/a.png"), named: "a", response: .text("a"))
        try await withServer(registry) { server in
            let base = server.baseURL.absoluteString
            let page = try curl(["-H", "Accept: text/html,application/xhtml+xml,*/*;q=0.8", "\(base)/"])
            XCTAssertEqual(page.text, """
                No stub matched GET \(base)/.
                Nearest stubs:
                  1. "a" (0 of 1 parts matched): path is /a.png (got /)
                The dashboard at \(base)/__admin/ shows every request and stub.

                """)
            let image = try curl(["-H", "Accept: image/*", "\(base)/"])
            XCTAssertFalse(image.text.contains("dashboard"), image.text)
            XCTAssertTrue(image.text.hasSuffix("(got /)\n"), image.text)
        }
        // The in-process transport has no dashboard, so its 404 never names one.
        let answer = await StubResponder(registry: registry, transport: .inProcess, upstream: nil)
            .answer(StubRequest(method: "GET", url: URL(string: "http://x.test/")!, headers: ["Accept": "text/html"]))
        XCTAssertFalse(String(decoding: answer.response.body, as: UTF8.self).contains("dashboard"))
    }
}
