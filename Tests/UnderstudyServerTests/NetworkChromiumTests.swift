import Foundation
import Understudy
import UnderstudyImages
import UnderstudyServer
import XCTest
import UnderstudyTestSupport

/// SPEC 16 in a real browser: headless Chromium draws a progressive JPEG served `by: scans`
/// part by part (a screenshot in a pause shows a partly drawn image, one after the last piece the
/// whole), and the dashboard shows the network profile in force and changes it.
final class NetworkChromiumTests: XCTestCase {
    /// The mean absolute difference per channel between two images' top-left `width` x `height`.
    static func difference(_ a: RGBAImage, _ b: RGBAImage, width: Int, height: Int) -> Double {
        var total = 0
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * a.width + x) * 4, j = (y * b.width + x) * 4
                for c in 0..<3 { total += abs(Int(a.pixels[i + c]) - Int(b.pixels[j + c])) }
            }
        }
        return Double(total) / Double(width * height * 3)
    }

    /// The share of the top-left `width` x `height` pixels that are not the page's white.
    static func drawnShare(_ image: RGBAImage, width: Int, height: Int) -> Double {
        var drawn = 0
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * image.width + x) * 4
                if image.pixels[i] < 245 || image.pixels[i + 1] < 245 || image.pixels[i + 2] < 245 { drawn += 1 }
            }
        }
        return Double(drawn) / Double(width * height)
    }

    func testAProgressiveJPEGByScansIsDrawnPartlyDuringAPauseAndWholeAfter() async throws {
        try requireEncoding(.jpeg)
        let directory = try makeTemporaryDirectory("understudy-chromium-scans")
        let (width, height) = (320, 240)
        let jpeg = try ImageTranscoder().renderSync(.generated(width: width, height: height, pattern: .photo), as: .jpegProgressive(quality: 85))
        let scans = PiecesServerTests.offsets(of: [0xFF, 0xDA], in: jpeg).count
        XCTAssertGreaterThan(scans, 3)
        let page = """
            <!doctype html><html><body style="margin:0;background:#fff">
            <img id="photo" src="/photo.jpg" style="display:block;width:\(width)px;height:\(height)px">
            </body></html>
            """
        let stubs = StubRegistry()
        stubs.stub(.path("/page.html"), response: .data(Data(page.utf8), contentType: "text/html; charset=utf-8"))
        stubs.stub(.path("/photo.jpg"), response: .data(jpeg).inPieces(.scans, interval: .milliseconds(700)))
        try await withServer(stubs) { server in
            let driver = try ChromiumDriver(directory: directory)
            defer { driver.quit() }
            try driver.navigate(server.baseURL.appendingPathComponent("page.html"))
            // Into the second pause: the first scans are in, the last not yet.
            let deadline = Date().addingTimeInterval(20)
            while !stubs.journal.interactions.contains(where: { $0.request.url.path == "/photo.jpg" }), Date() < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            try await Task.sleep(for: .milliseconds(1_000))
            let during = try RGBAImage(decoding: driver.screenshot())
            XCTAssertEqual(stubs.journal.interactions.first { $0.request.url.path == "/photo.jpg" }?.outcome, .inFlight, "the screenshot was taken in a pause")
            try await stubs.journal.wait(for: .path("/photo.jpg"), count: 1, timeout: .seconds(30))
            var finished = false
            for _ in 0..<300 where !finished {
                finished = stubs.journal.interactions.first { $0.request.url.path == "/photo.jpg" }?.outcome == .completed
                if !finished { try await Task.sleep(for: .milliseconds(50)) }
            }
            XCTAssertTrue(finished)
            try driver.wait(until: #"document.getElementById("photo").complete"#)
            try await Task.sleep(for: .milliseconds(300))
            let after = try RGBAImage(decoding: driver.screenshot())
            let whole = try RGBAImage(decoding: jpeg)

            XCTAssertLessThan(Self.difference(after, whole, width: width, height: height), 6, "after the last piece, the whole image")
            XCTAssertGreaterThan(Self.drawnShare(during, width: width, height: height), 0.5, "during a pause, the image is drawn, not blank")
            let partial = Self.difference(during, whole, width: width, height: height)
            XCTAssertGreaterThan(partial, 2 * Self.difference(after, whole, width: width, height: height) + 1,
                                 "during a pause, fewer scans than the whole: \(partial)")
        }
    }

    func testTheDashboardShowsTheProfileInForceAndChangesIt() async throws {
        let directory = try makeTemporaryDirectory("understudy-dashboard-network")
        try await withServer(StubRegistry(), configuration: StubServer.Configuration(network: .dsl)) { server in
            let driver = try ChromiumDriver(directory: directory)
            defer { driver.quit() }
            try driver.navigate(server.baseURL.appendingPathComponent("__admin/"))
            try driver.wait(until: #"document.getElementById("network-current").textContent.startsWith("dsl")"#)
            XCTAssertEqual(try driver.evaluate(#"document.getElementById("network-current").textContent"#) as? String,
                           "dsl (5 ms, 2000kbit/s), the server's --network")
            XCTAssertEqual(try driver.evaluate(#"document.getElementById("network-select").options.length"#) as? Int, 12)

            _ = try driver.evaluate(##"document.getElementById("network-select").value = "slow-3g"; document.querySelector("#network-form button").click()"##)
            try driver.wait(until: #"document.getElementById("network-current").textContent.startsWith("slow-3g")"#)
            XCTAssertEqual(server.network, .slow3G)
            XCTAssertEqual(try driver.evaluate(#"document.getElementById("network-current").textContent"#) as? String,
                           "slow-3g (2000 ms, 400kbit/s), set at run time")

            _ = try driver.evaluate(##"document.getElementById("network-select").value = ""; document.querySelector("#network-form button").click()"##)
            try driver.wait(until: #"document.getElementById("network-current").textContent.startsWith("dsl")"#)
            XCTAssertEqual(server.network, .dsl, "back to the server's own")
        }
    }
}
