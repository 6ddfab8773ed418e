import Foundation
import Understudy
import UnderstudyServer
import XCTest

/// A real browser cache: headless Chromium loads a page twice with one profile (its disk cache
/// on). The image says `Cache-Control: no-cache`, so the second load revalidates it: the journal
/// shows Chromium's `If-None-Match` answered 304, and the image still decodes, from the cache.
final class ChromiumCachingTests: XCTestCase {
    static let stubFile = """
    stubs:
      - name: page
        request: { path: /page.html }
        response:
          headers: { Content-Type: text/html; charset=utf-8, Cache-Control: no-store }
          body: |
            <!doctype html>
            <html><body>
            <img id="photo" src="/img/photo.png">
            <pre id="widths">pending</pre>
            <script>
            window.addEventListener("load", () => {
              document.getElementById("widths").textContent =
                Array.from(document.images).map((image) => image.id + "=" + image.naturalWidth).join(" ");
            });
            </script>
            </body></html>
      - name: photo
        request: { path: /img/photo.png }
        response:
          image: { generate: { width: 83, height: 9, pattern: gradient }, as: png }
          cache: { control: no-cache }

    """

    func testChromiumRevalidatesItsCachedImageAnd304KeepsItDecoding() async throws {
        let directory = try makeTemporaryDirectory("chromium-cache")
        let stubsDirectory = directory.appendingPathComponent("stubs")
        try FileManager.default.createDirectory(at: stubsDirectory, withIntermediateDirectories: true)
        try Self.stubFile.write(to: stubsDirectory.appendingPathComponent("page.yaml"), atomically: true, encoding: .utf8)
        let stubs = StubRegistry()
        try stubs.load(from: stubsDirectory)
        let profile = directory.appendingPathComponent("profile")

        try await withServer(stubs) { server in
            let page = server.baseURL.appendingPathComponent("page.html")
            for load in 1...2 {
                let dom = try ChromiumTests.dumpDOM(of: page, profile: profile)
                XCTAssertTrue(dom.contains(#"<pre id="widths">photo=83</pre>"#), "load \(load): \(dom)")
            }
            let images = stubs.journal.interactions(matching: .path("/img/photo.png"))
            XCTAssertEqual(images.map { $0.status ?? 0 }, [200, 304], "\(images)")
            let etag = try XCTUnwrap(images.first?.responseHeaders["ETag"])
            XCTAssertEqual(images.last?.request.headers["If-None-Match"], etag)
            XCTAssertEqual(images.last?.bodyBytesSent, 0)
            XCTAssertEqual(images.last?.responseHeaders["Cache-Control"], "no-cache")
        }
    }
}
