import Foundation
import Understudy
import UnderstudyServer
import XCTest
import UnderstudyTestSupport

/// Headless Chromium renders AVIF, an animated AVIF and an animated GIF from the stub server, each
/// chosen by negotiation from Chromium's own Accept header, at their sizes; a HEIC it cannot
/// decode stays broken (why negotiation must not hand it HEIC on the strength of `image/*`).
final class ChromiumFormatsTests: XCTestCase {
    func testChromiumRendersNegotiatedAVIFAnimatedAVIFAndAnimatedGIFAtTheirSizes() async throws {
        try requireEncoding(.avif, .heic, .gif)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("understudy-chromium-formats-\(UUID().uuidString)")
        let stubsDirectory = directory.appendingPathComponent("stubs")
        try FileManager.default.createDirectory(at: stubsDirectory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Self.stubFile.write(to: stubsDirectory.appendingPathComponent("page.yaml"), atomically: true, encoding: .utf8)
        let stubs = StubRegistry()
        try stubs.load(from: stubsDirectory)

        try await withServer(stubs) { server in
            let dom = try ChromiumTests.dumpDOM(of: server.baseURL.appendingPathComponent("page.html"), profile: directory.appendingPathComponent("profile"))
            let sizes = try XCTUnwrap(dom.range(of: #"(?<=<pre id="sizes">)[^<]*"#, options: .regularExpression).map { String(dom[$0]) }, dom)
            XCTAssertEqual(sizes, "avif=37x11 avifAnimated=41x13 gifAnimated=43x15 heic=0x0", dom)

            let journal = stubs.journal.interactions
            func entry(_ path: String) throws -> Interaction {
                try XCTUnwrap(journal.first { $0.request.url.path == path }, "\(path) not in the journal: \(journal)")
            }
            let accept = try entry("/img/photo").request.headers["Accept"] ?? ""
            XCTAssertTrue(accept.contains("image/avif") && accept.contains("image/*"), accept)
            XCTAssertFalse(accept.contains("image/heic"), accept)
            XCTAssertEqual(try entry("/img/photo").responseHeaders["Content-Type"], "image/avif", "named explicitly: AVIF before HEIC")
            XCTAssertEqual(try entry("/img/spinner").responseHeaders["Content-Type"], "image/avif")
            XCTAssertEqual(try entry("/img/spinner.gif").responseHeaders["Content-Type"], "image/gif")
            XCTAssertEqual(try entry("/img/photo.heic").responseHeaders["Content-Type"], "image/heic")
            for path in ["/img/photo", "/img/spinner", "/img/spinner.gif"] {
                XCTAssertEqual(try entry(path).responseHeaders["Vary"], "Accept", path)
            }
        }
    }

    static let stubFile = """
        stubs:
          - name: page
            request: { path: /page.html }
            response:
              headers: { Content-Type: text/html; charset=utf-8 }
              body: |
                <!doctype html>
                <html><body>
                <img id="avif" src="/img/photo">
                <img id="avifAnimated" src="/img/spinner">
                <img id="gifAnimated" src="/img/spinner.gif">
                <img id="heic" src="/img/photo.heic">
                <pre id="sizes">pending</pre>
                <script>
                window.addEventListener("load", () => {
                  document.getElementById("sizes").textContent = Array.from(document.images)
                    .map((image) => image.id + "=" + image.naturalWidth + "x" + image.naturalHeight).join(" ");
                });
                </script>
                </body></html>
          - name: photo
            request: { path: /img/photo }
            response:
              image: { generate: { width: 37, height: 11, pattern: photo }, as: negotiate, formats: [heic, avif, webp, png] }
          - name: spinner
            request: { path: /img/spinner }
            response:
              image: { generate: { width: 41, height: 13, pattern: checkerboard, frames: 4, frameDuration: 100ms }, as: negotiate, formats: [heic, avif, gif, png] }
          - name: spinner-gif
            request: { path: /img/spinner.gif }
            response:
              image: { generate: { width: 43, height: 15, pattern: checkerboard, frames: 4, frameDuration: 100ms }, as: negotiate, formats: [gif, png] }
          - name: heic
            request: { path: /img/photo.heic }
            response:
              image: { generate: { width: 29, height: 9, pattern: photo }, as: heic }

        """
}
