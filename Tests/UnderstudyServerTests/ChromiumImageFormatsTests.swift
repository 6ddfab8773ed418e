import Foundation
import Understudy
import UnderstudyServer
import XCTest
import UnderstudyTestSupport

/// SPEC section 12 in a real browser: headless Chromium loads a page from the stub server with a
/// JPEG, a progressive JPEG, an image resized from its `?w=`, an animated WebP and two damaged
/// images, and a script writes each image's decoded size (`naturalWidth` x `naturalHeight`) into
/// the DOM. Every image has its own size, so a mix-up shows; a damaged image decodes to 0x0.
final class ChromiumImageFormatsTests: XCTestCase {
    func testChromiumRendersJPEGsResizedAndAnimatedImagesAtTheirSizes() async throws {
        try requireEncoding(.jpeg, .webp)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("understudy-chromium-formats-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        let stubs = StubRegistry(transcoder: ImageTranscoder())
        stubs.stub(.path("/page.html"), named: "page", response: .data(Data(Self.page.utf8), contentType: "text/html; charset=utf-8"))
        stubs.stub(.path("/img/photo.jpg"), named: "jpeg",
                   response: .image(.generated(width: 41, height: 13, pattern: .photo), as: .jpeg(quality: 85)))
        stubs.stub(.path("/img/progressive.jpg"), named: "progressive",
                   response: .image(.generated(width: 43, height: 17, pattern: .photo), as: .jpegProgressive(quality: 85)))
        stubs.stub(.path("/img/resized"), named: "resized",
                   response: .image(.generated(width: 1600, height: 1200, pattern: .photo), as: .negotiated(among: [.webp, .jpeg]),
                                    resize: .init(width: .query("w"), height: .query("h"), fit: .cover)))
        stubs.stub(.path("/img/spinner.webp"), named: "animated",
                   response: .image(.animated(width: 67, height: 19, pattern: .checkerboard, frames: 6, frameDuration: .milliseconds(80)),
                                    as: .webp(quality: 80)))
        stubs.stub(.path("/img/broken.jpg"), named: "broken",
                   response: .image(.generated(width: 71, height: 23, pattern: .photo), as: .jpeg(quality: 85), damage: .badChecksum))
        stubs.stub(.path("/img/signature.png"), named: "signature",
                   response: .image(.generated(width: 73, height: 29, pattern: .gradient), as: .png, damage: .wrongSignature))

        try await withServer(stubs) { server in
            let dom = try ChromiumTests.dumpDOM(of: server.baseURL.appendingPathComponent("page.html"), profile: directory.appendingPathComponent("profile"))
            let sizes = try XCTUnwrap(dom.range(of: #"(?<=<pre id="sizes">)[^<]*"#, options: .regularExpression).map { String(dom[$0]) }, dom)
            XCTAssertEqual(sizes, "jpeg=41x13 progressive=43x17 resized=59x31 contained=59x44 animated=67x19 broken=0x0 signature=0x0", dom)

            let journal = stubs.journal.interactions
            func contentType(_ path: String) -> String? {
                journal.first { $0.request.url.path == path }?.responseHeaders["Content-Type"]
            }
            XCTAssertEqual(contentType("/img/photo.jpg"), "image/jpeg")
            XCTAssertEqual(contentType("/img/progressive.jpg"), "image/jpeg")
            XCTAssertEqual(contentType("/img/resized"), "image/webp", "Chromium admits WebP, first in the formats")
            XCTAssertEqual(contentType("/img/spinner.webp"), "image/webp")
            XCTAssertEqual(contentType("/img/broken.jpg"), "image/jpeg", "damage keeps the Content-Type")
            XCTAssertEqual(contentType("/img/signature.png"), "image/png")
        }
    }

    static let page = """
        <!doctype html>
        <html><body>
        <img id="jpeg" src="/img/photo.jpg">
        <img id="progressive" src="/img/progressive.jpg">
        <img id="resized" src="/img/resized?w=59&h=31">
        <img id="contained" src="/img/resized?w=59">
        <img id="animated" src="/img/spinner.webp">
        <img id="broken" src="/img/broken.jpg">
        <img id="signature" src="/img/signature.png">
        <pre id="sizes">pending</pre>
        <script>
        window.addEventListener("load", () => {
          document.getElementById("sizes").textContent = Array.from(document.images)
            .map((image) => image.id + "=" + image.naturalWidth + "x" + image.naturalHeight).join(" ");
        });
        </script>
        </body></html>
        """
}
