import Foundation
import Understudy
import UnderstudyServer
import XCTest
import UnderstudyTestSupport

/// A real browser: headless Chromium (Debian's `chromium`, installed by `make test-deps`) loads
/// a page from the stub server whose `<img>` tags cover a WebP, a PNG, a negotiated image, a
/// redirect, a WebP fetched through a `forward:` stub and transcoded to PNG, and a 404. A script
/// writes each image's decoded width into the DOM, which `--dump-dom` hands back. Every image has
/// its own width, so a mix-up shows.
final class ChromiumTests: XCTestCase {
    func testChromiumDecodesEveryStubbedImageAndTheJournalHoldsItsRealAcceptHeader() async throws {
        try requireEncoding(.webp)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("understudy-chromium-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        // The upstream the `forward:` stub fetches from: a WebP, 73 px wide.
        let upstreamStubs = StubRegistry()
        upstreamStubs.stub(.path("/img/proxied.png"), named: "upstream-webp", response: .image(.generated(width: 73, height: 9, pattern: .gradient), as: .webp(quality: 80)))
        let upstream = try await StubServer.start(serving: upstreamStubs)
        do {
            try await loadPage(in: directory, upstream: upstream, upstreamStubs: upstreamStubs)
        } catch {
            try await upstream.stop()
            throw error
        }
        try await upstream.stop()
    }

    private func loadPage(in directory: URL, upstream: StubServer, upstreamStubs: StubRegistry) async throws {
        let stubsDirectory = directory.appendingPathComponent("stubs")
        try FileManager.default.createDirectory(at: stubsDirectory, withIntermediateDirectories: true)
        try Self.stubFile(upstream: upstream.baseURL).write(to: stubsDirectory.appendingPathComponent("page.yaml"), atomically: true, encoding: .utf8)
        let stubs = StubRegistry()
        try stubs.load(from: stubsDirectory)

        try await withServer(stubs) { server in
            let dom = try Self.dumpDOM(of: server.baseURL.appendingPathComponent("page.html"), profile: directory.appendingPathComponent("profile"))
            let widths = try XCTUnwrap(dom.range(of: #"(?<=<pre id="widths">)[^<]*"#, options: .regularExpression).map { String(dom[$0]) }, dom)
            XCTAssertEqual(widths, "webp=31 png=47 negotiated=53 redirected=61 proxied=73 missing=0", dom)

            let journal = stubs.journal.interactions
            func entry(_ path: String) throws -> Interaction {
                try XCTUnwrap(journal.first { $0.request.url.path == path }, "\(path) not in the journal: \(journal)")
            }
            let page = try entry("/page.html")
            XCTAssertTrue(page.request.headers["Accept"]?.contains("text/html") ?? false, "\(page.request.headers)")
            let userAgent = page.request.headers["User-Agent"] ?? ""
            XCTAssertTrue(userAgent.contains("HeadlessChrome/"), userAgent)

            // Chromium's own image Accept header, as the journal saw it, and what it bought.
            let negotiated = try entry("/img/negotiated")
            let accept = negotiated.request.headers["Accept"] ?? ""
            XCTAssertTrue(accept.contains("image/webp"), accept)
            XCTAssertTrue(accept.contains("image/avif"), accept)
            XCTAssertEqual(negotiated.responseHeaders["Content-Type"], "image/webp", "Chromium admits WebP, so the negotiated image is WebP")
            XCTAssertEqual(negotiated.responseHeaders["Vary"], "Accept")
            for path in ["/img/a.webp", "/img/b.png", "/img/old.png", "/img/new.png", "/img/proxied.png", "/img/missing.png"] {
                XCTAssertEqual(try entry(path).request.headers["Accept"], accept, "\(path): every <img> request sends the same Accept")
            }
            print("Chromium's image Accept header: \(accept)\nUser-Agent: \(userAgent)")

            XCTAssertEqual(try entry("/img/a.webp").responseHeaders["Content-Type"], "image/webp")
            XCTAssertEqual(try entry("/img/b.png").responseHeaders["Content-Type"], "image/png")
            XCTAssertEqual(try entry("/img/old.png").status, 302)
            XCTAssertEqual(try entry("/img/new.png").status, 200)
            let proxied = try entry("/img/proxied.png")
            XCTAssertEqual(proxied.stubName, "proxied")
            XCTAssertEqual(proxied.responseHeaders["Content-Type"], "image/png", "the forwarded WebP was transcoded")
            XCTAssertEqual(upstreamStubs.journal.count(matching: .path("/img/proxied.png")), 1)
            XCTAssertEqual(upstreamStubs.journal.interactions.first?.responseHeaders["Content-Type"], "image/webp")
            let missing = try entry("/img/missing.png")
            XCTAssertEqual(missing.status, 404)
            XCTAssertNil(missing.stubName)
        }
    }

    /// The page and its images as a stub file, with `upstream` as the forward target.
    static func stubFile(upstream: URL) -> String {
        """
        stubs:
          - name: page
            request: { path: /page.html }
            response:
              headers: { Content-Type: text/html; charset=utf-8 }
              body: |
                <!doctype html>
                <html><body>
                <img id="webp" src="/img/a.webp">
                <img id="png" src="/img/b.png">
                <img id="negotiated" src="/img/negotiated">
                <img id="redirected" src="/img/old.png">
                <img id="proxied" src="/img/proxied.png">
                <img id="missing" src="/img/missing.png">
                <pre id="widths">pending</pre>
                <script>
                window.addEventListener("load", () => {
                  document.getElementById("widths").textContent =
                    Array.from(document.images).map((image) => image.id + "=" + image.naturalWidth).join(" ");
                });
                </script>
                </body></html>
          - name: webp
            request: { path: /img/a.webp }
            response: { image: { generate: { width: 31, height: 9, pattern: checkerboard }, as: webp, quality: 80 } }
          - name: png
            request: { path: /img/b.png }
            response: { image: { generate: { width: 47, height: 9, pattern: gradient }, as: png } }
          - name: negotiated
            request: { path: /img/negotiated }
            response: { image: { generate: { width: 53, height: 9, pattern: checkerboard }, as: negotiate } }
          - name: redirect
            request: { path: /img/old.png }
            response: { redirect: { to: /img/new.png, status: 302 } }
          - name: redirected
            request: { path: /img/new.png }
            response: { image: { generate: { width: 61, height: 9, pattern: solid, color: "#3366cc" }, as: png } }
          - name: proxied
            request: { path: /img/proxied.png }
            response: { forward: { to: "\(upstream.absoluteString)" }, transcode: png }

        """
    }

    /// Runs headless Chromium on `url` and returns the DOM after the page's load event.
    /// `timeout -s KILL` bounds it (SIGKILL: a child spawned from a Dispatch thread ignores
    /// SIGTERM); Chromium's helper processes exit with the browser.
    static func dumpDOM(of url: URL, profile: URL) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "timeout", "-s", "KILL", "90", "chromium",
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
            "--disable-crash-reporter", "--no-proxy-server", "--user-data-dir=\(profile.path)",
            "--virtual-time-budget=10000", "--dump-dom", url.absoluteString,
        ]
        let log = profile.deletingLastPathComponent().appendingPathComponent("chromium.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let out = Pipe()
        process.standardOutput = out
        process.standardError = try FileHandle(forWritingTo: log)
        try process.run()
        let dom = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let stderr = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        guard process.terminationStatus == 0 else {
            throw ChromiumFailure(description: "chromium exited \(process.terminationStatus) (127: not installed, run `make test-deps`; 137: killed after 90 s):\n\(stderr.suffix(2_000))")
        }
        return String(decoding: dom, as: UTF8.self)
    }

    struct ChromiumFailure: Error, CustomStringConvertible {
        let description: String
    }
}
