import Foundation
import Understudy
import UnderstudyImages
import UnderstudyServer
import XCTest
import UnderstudyTestSupport

/// The hazards over real sockets as curl sees them (SPEC 20): header hazards' status, headers
/// and bytes, gzip decoded by `--compressed`, the cache hazards' request numbers and
/// `POST /__admin/reset`, and the gallery page.
final class HazardServerTests: XCTestCase {
    private func hazardServer(_ body: (StubServer, String) async throws -> Void) async throws {
        let registry = StubRegistry()
        registry.stubHazards(under: "/hazards")
        try await withServer(registry) { server in try await body(server, server.baseURL.absoluteString) }
    }

    /// curl's `-D -` headers, lower-cased names, and the body.
    private func fetch(_ url: String, _ extra: [String] = []) throws -> (status: Int, headers: [String: String], body: Data) {
        let directory = try makeTemporaryDirectory("hazard-curl")
        let bodyFile = directory.appendingPathComponent("body").path
        let result = try curl(["-D", "-", "-o", bodyFile] + extra + [url])
        var headers: [String: String] = [:]
        var status = 0
        for line in result.text.split(separator: "\r\n") {
            if line.hasPrefix("HTTP/") { status = Int(line.split(separator: " ")[1]) ?? 0; continue }
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let body = (try? Data(contentsOf: URL(fileURLWithPath: bodyFile))) ?? Data()
        return (status, headers, body)
    }

    func testCurlSeesEachHeaderHazardsStatusHeadersAndBytes() async throws {
        try await hazardServer { _, base in
            let png = try Hazard.contentTypeWrong.imageData()
            let compressed = try fetch(base + "/hazards/gzip-encoded", ["--compressed"])
            XCTAssertEqual(compressed.headers["content-encoding"], "gzip")
            XCTAssertEqual(compressed.body, png, "curl --compressed decodes gzip-encoded to the PNG")
            let unlabelled = try fetch(base + "/hazards/gzip-unlabelled", ["--compressed"])
            XCTAssertEqual(unlabelled.headers["content-type"], "image/png")
            XCTAssertNil(unlabelled.headers["content-encoding"])
            XCTAssertEqual(Array(unlabelled.body.prefix(2)), [0x1F, 0x8B], "gzip-unlabelled starts with 1f 8b under image/png")
            let missing = try fetch(base + "/hazards/content-type-missing")
            XCTAssertEqual(missing.status, 200)
            XCTAssertNil(missing.headers["content-type"])
            XCTAssertEqual(missing.body, png)
            let wrong = try fetch(base + "/hazards/content-type-wrong")
            XCTAssertEqual(wrong.headers["content-type"], "image/jpeg")
            XCTAssertEqual(wrong.body, png)
            let portal = try fetch(base + "/hazards/captive-portal", ["-L"])
            XCTAssertEqual(portal.status, 200, "after the 302, the login page")
            XCTAssertTrue(String(decoding: portal.body, as: UTF8.self).contains("Sign in"))
            let empty = try fetch(base + "/hazards/empty-200")
            XCTAssertEqual(empty.status, 200)
            XCTAssertEqual(empty.headers["content-length"], "0")
            let longer = try curl([base + "/hazards/length-longer-than-body"])
            XCTAssertEqual(longer.status, 18, "curl: transfer closed with outstanding read data remaining")
            XCTAssertEqual(longer.stdout.count, png.count / 2)
            let mismatch = try fetch(base + "/hazards/extension-mismatch.jpg")
            if ImageKind.webp.canEncode {
                XCTAssertEqual(ImageKind.detect(mismatch.body), .webp)
            } else {
                XCTAssertEqual(mismatch.status, 500, "a build without libwebp says it cannot encode WebP")
            }
        }
    }

    func testCacheHazardsCountRequestsPerURLAndAdminResetStartsAgain() async throws {
        try await hazardServer { _, base in
            for number in 1...2 {
                let answer = try fetch(base + "/hazards/changes-max-age-0")
                XCTAssertEqual(answer.headers["x-understudy-request"], "\(number)")
                XCTAssertEqual(answer.headers["cache-control"], "max-age=0")
                XCTAssertEqual(try RGBAImage(decoding: answer.body), Hazard.numberedImage(number))
            }
            let first = try fetch(base + "/hazards/error-after-image")
            let second = try fetch(base + "/hazards/error-after-image")
            XCTAssertEqual([first.status, second.status], [200, 503])
            let reset = try curl(["-X", "POST", "-o", "/dev/null", "-w", "%{http_code}", base + "/__admin/reset"])
            XCTAssertEqual(reset.text, "200")
            let again = try fetch(base + "/hazards/changes-max-age-0")
            XCTAssertEqual(again.headers["x-understudy-request"], "1", "POST /__admin/reset clears the counts")
            let catalogue = try fetch(base + "/hazards/")
            XCTAssertEqual(catalogue.status, 200, "the hazards survive the reset")
        }
    }

    func testTheGalleryListsEveryHazardWithItsVerdictHooks() async throws {
        try await hazardServer { _, base in
            let page = try fetch(base + "/__admin/hazards")
            XCTAssertEqual(page.status, 200)
            let html = String(decoding: page.body, as: UTF8.self)
            for hazard in Hazard.allCases {
                XCTAssertTrue(html.contains("data-hazard=\"\(hazard.name)\""), hazard.name)
            }
            XCTAssertTrue(html.contains("data-src=\"/hazards/bomb-png\""), "bombs load on a click only")
            XCTAssertFalse(html.contains("src=\"/hazards/bomb-png\"\n"))
            XCTAssertTrue(html.contains("src=\"/hazards/orientation-6/expected.png\""))
            XCTAssertFalse(html.contains("<script>"), "no inline script: the dashboard's policy forbids it")
            let script = try fetch(base + "/__admin/hazards.js")
            XCTAssertEqual(script.headers["content-type"], "text/javascript; charset=utf-8")
            XCTAssertTrue(String(decoding: script.body, as: UTF8.self).contains("dataset.verdict"))
        }
    }

    /// SPEC 18: where this build cannot encode a hazard's format, the hazard answers 500 with
    /// the clear "cannot encode" error, and stub files refuse it at load; with the C codecs it
    /// is served.
    func testAHazardThisBuildCannotEncodeGivesTheCannotEncodeError() async throws {
        try await hazardServer { _, base in
            let answer = try fetch(base + "/hazards/orientation-6")
            if ImageKind.jpeg.canEncode {
                XCTAssertEqual(answer.status, 200)
                XCTAssertEqual(ImageKind.detect(answer.body), .jpeg)
            } else {
                XCTAssertEqual(answer.status, 500)
                XCTAssertTrue(String(decoding: answer.body, as: UTF8.self).contains("cannot encode JPEG"), String(decoding: answer.body, as: UTF8.self))
                XCTAssertThrowsError(try Hazard.orientation6.imageData()) { error in
                    XCTAssertEqual((error as? ImageError)?.code, .unsupportedFormat)
                }
            }
            // PNG bombs and the header hazards' PNGs are written in every build.
            XCTAssertEqual(try fetch(base + "/hazards/bomb-png").status, 200)
            XCTAssertEqual(try fetch(base + "/hazards/content-type-wrong").status, 200)
        }
    }
}
