import Foundation
import Understudy
import UnderstudyImages
import UnderstudyServer
import XCTest
import UnderstudyTestSupport

/// `GET /__admin/requests.har` as a client downloads it: measured phases and the bodies the
/// stubs rendered, which the registry holds or renders again so the journal keeps no copy.
final class HARExportTests: XCTestCase {
    private func har(_ server: StubServer) throws -> [[String: Any]] {
        let result = try curl(["\(server.baseURL.absoluteString)/__admin/requests.har"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        let log = try XCTUnwrap(document["log"] as? [String: Any])
        return try XCTUnwrap(log["entries"] as? [[String: Any]])
    }

    func testTimingsAreMeasuredPhasesAndCannedBodiesAreIncluded() async throws {
        let stubs = StubRegistry()
        let paced = String(repeating: "p", count: 2_000)
        stubs.stub(.path("/paced"), named: "paced", response: .text(paced).delayed(by: .milliseconds(150)).throttled(to: .bytesPerSecond(5_000)))
        stubs.stub(.path("/made")) { _ in .text("made by a closure") }
        try await withServer(stubs) { server in
            let paced = try curl(["-d", String(repeating: "u", count: 10_000), "\(server.baseURL.absoluteString)/paced"])
            XCTAssertEqual(paced.text.count, 2_000, paced.stderr)
            _ = try curl(["\(server.baseURL.absoluteString)/made"])

            let entries = try har(server)
            XCTAssertEqual(entries.count, 2)
            let timings = try XCTUnwrap(entries[0]["timings"] as? [String: Double])
            let time = try XCTUnwrap(entries[0]["time"] as? Double)
            // The stub's delay is waiting; 2,000 bytes at 5,000 B/s take about 400 ms to receive.
            XCTAssertGreaterThanOrEqual(timings["wait"] ?? 0, 140, "\(timings)")
            XCTAssertLessThan(timings["wait"] ?? 0, 380, "\(timings)")
            XCTAssertGreaterThanOrEqual(timings["receive"] ?? 0, 300, "\(timings)")
            XCTAssertGreaterThanOrEqual(timings["send"] ?? -1, 0, "\(timings)")
            XCTAssertEqual((timings["send"] ?? 0) + (timings["wait"] ?? 0) + (timings["receive"] ?? 0), time, accuracy: 2, "the phases add up to the whole")

            let content = try XCTUnwrap((entries[0]["response"] as? [String: Any])?["content"] as? [String: Any])
            XCTAssertEqual(content["text"] as? String, String(repeating: "p", count: 2_000), "a canned answer's body is in the HAR")
            let made = try XCTUnwrap((entries[1]["response"] as? [String: Any])?["content"] as? [String: Any])
            XCTAssertNil(made["text"], "a closure's body is kept only when the journal keeps bodies")
            XCTAssertEqual(made["size"] as? Int, 17)
        }
    }

    /// Every body the server rendered is in the HAR: a file, JSON, a file transcoded, a
    /// generated image and a resized one, images base64; each decodes to the image sent. Entries
    /// that repeat an answer share its bytes rather than hold a copy each.
    func testTheHARCarriesEveryRenderedBodyImagesInBase64() async throws {
        try requireEncoding(.webp, .jpeg)
        let directory = try makeTemporaryDirectory("har-bodies")
        let png = directory.appendingPathComponent("wide.png")
        try ImageGenerator.generate(width: 41, height: 23, pattern: .gradient).pngData().write(to: png)
        let stubs = StubRegistry()
        stubs.stub(.path("/file.png"), named: "file", response: .file(png))
        stubs.stub(.path("/data.json"), named: "json", response: .json(["cats": 3, "name": "tabby"]))
        stubs.stub(.path("/transcoded.webp"), named: "transcoded", response: .file(png).transcoded(to: .webpLossless))
        stubs.stub(.path("/generated.png"), named: "generated", response: .image(.generated(width: 19, height: 7, pattern: .checkerboard), as: .png))
        stubs.stub(.path("/resized.jpg"), named: "resized", response: .image(.file(png), as: .jpeg(quality: 90), resize: .init(width: .query("w"))))
        try await withServer(stubs) { server in
            let base = server.baseURL.absoluteString
            for path in ["/file.png", "/data.json", "/transcoded.webp", "/generated.png", "/resized.jpg?w=20", "/generated.png"] {
                XCTAssertEqual(try curl(["-o", "/dev/null", "-w", "%{http_code}", base + path]).text, "200", path)
            }
            let entries = try har(server)
            XCTAssertEqual(entries.count, 6)
            func content(_ index: Int) throws -> (text: String, encoding: String?, mimeType: String?) {
                let content = try XCTUnwrap((entries[index]["response"] as? [String: Any])?["content"] as? [String: Any])
                let text = try XCTUnwrap(content["text"] as? String, "entry \(index) has its body: \(content)")
                return (text, content["encoding"] as? String, content["mimeType"] as? String)
            }
            func image(_ index: Int) throws -> (width: Int, height: Int, mimeType: String?) {
                let (text, encoding, mimeType) = try content(index)
                XCTAssertEqual(encoding, "base64", "entry \(index)")
                let decoded = try RGBAImage(decoding: XCTUnwrap(Data(base64Encoded: text)))
                return (decoded.width, decoded.height, mimeType)
            }
            XCTAssertEqual(try image(0).width, 41)
            let json = try content(1)
            XCTAssertNil(json.encoding, "text stays text")
            XCTAssertEqual(try JSONSerialization.jsonObject(with: Data(json.text.utf8)) as? NSDictionary, ["cats": 3, "name": "tabby"])
            XCTAssertEqual(try image(2).mimeType, "image/webp")
            XCTAssertEqual(try [image(2).width, image(2).height], [41, 23])
            XCTAssertEqual(try [image(3).width, image(3).height], [19, 7])
            XCTAssertEqual(try image(4).mimeType, "image/jpeg")
            XCTAssertEqual(try image(4).width, 20, "resized by the query")
            XCTAssertEqual(try content(5).text, try content(3).text)
        }
        // The two generated answers share one rendering's bytes.
        let filled = await stubs.fillingRenderedBodies(stubs.journal.interactions)
        let first = try XCTUnwrap(filled[3].responseBody), again = try XCTUnwrap(filled[5].responseBody)
        XCTAssertEqual(first, again)
        XCTAssertEqual(first.withUnsafeBytes { $0.baseAddress }, again.withUnsafeBytes { $0.baseAddress }, "one copy of the bytes, not one per entry")
    }
}
