import Foundation
@testable import Understudy
import UnderstudyImages
import XCTest

/// The hazards as a registry serves them (SPEC 20): the catalogue, each hazard's status,
/// headers and bytes, the cache hazards' request numbers, and `hazard:` in stub files.
final class HazardStubTests: XCTestCase {
    private func hazards() -> StubRegistry {
        let registry = StubRegistry()
        registry.stubHazards(under: "/hazards")
        return registry
    }

    func testTheCatalogueListsEveryHazardWithItsPathAndExpectedImage() async throws {
        let registry = hazards()
        let response = try await registry.answer("http://localhost/hazards/")
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.headers["Content-Type"], "application/json")
        let json = try JSONSerialization.jsonObject(with: response.body) as! [String: Any]
        let entries = json["hazards"] as! [[String: Any]]
        XCTAssertEqual(entries.map { $0["name"] as! String }, Hazard.allNames)
        let byName = Dictionary(uniqueKeysWithValues: entries.map { ($0["name"] as! String, $0) })
        XCTAssertEqual(byName["extension-mismatch"]?["path"] as? String, "/hazards/extension-mismatch.jpg")
        XCTAssertEqual(byName["orientation-6"]?["expected"] as? String, "/hazards/orientation-6/expected.png")
        XCTAssertEqual(byName["orientation-6"]?["group"] as? String, "pixels")
        XCTAssertTrue(byName["bomb-png"]?["expected"] is NSNull, "a bomb has no expected image: null")
        XCTAssertEqual(Set(entries[0].keys), ["name", "group", "summary", "correctBehaviour", "path", "expected"])
    }

    func testEachPixelHazardAndItsExpectedImageAreServed() async throws {
        let registry = hazards()
        let jpeg = try await registry.answer("http://localhost/hazards/orientation-6")
        XCTAssertEqual(jpeg.headers["Content-Type"], "image/jpeg")
        XCTAssertEqual(jpeg.body, try Hazard.orientation6.imageData())
        let expected = try await registry.answer("http://localhost/hazards/orientation-6/expected.png")
        XCTAssertEqual(expected.headers["Content-Type"], "image/png")
        XCTAssertEqual(try RGBAImage(decoding: expected.body), Hazard.orientation6.expected)
        let bomb = try await registry.answer("http://localhost/hazards/bomb-gif")
        XCTAssertEqual(bomb.headers["Content-Type"], "image/gif")
        XCTAssertLessThanOrEqual(bomb.body.count, 65_536)
    }

    func testHeaderHazardsSendTheStatusHeadersAndBytesTheCatalogueDescribes() async throws {
        let registry = hazards()
        let png = try Hazard.contentTypeMissing.imageData()
        let missing = try await registry.answer("http://localhost/hazards/content-type-missing")
        XCTAssertNil(missing.headers["Content-Type"])
        XCTAssertEqual(missing.body, png)
        let octet = try await registry.answer("http://localhost/hazards/content-type-octet-stream")
        XCTAssertEqual(octet.headers["Content-Type"], "application/octet-stream")
        let wrong = try await registry.answer("http://localhost/hazards/content-type-wrong")
        XCTAssertEqual(wrong.headers["Content-Type"], "image/jpeg")
        XCTAssertEqual(ImageKind.detect(wrong.body), .png)
        let mismatch = try await registry.answer("http://localhost/hazards/extension-mismatch.jpg")
        XCTAssertEqual(ImageKind.detect(mismatch.body), .webp)
        let html = try await registry.answer("http://localhost/hazards/html-200")
        XCTAssertEqual(html.status, 200)
        XCTAssertEqual(html.headers["Content-Type"], "text/html; charset=utf-8")
        let portal = try await registry.answer("http://localhost/hazards/captive-portal")
        XCTAssertEqual(portal.status, 302)
        XCTAssertEqual(portal.headers["Location"], "captive-portal/login")
        let login = try await registry.answer("http://localhost/hazards/captive-portal/login")
        XCTAssertEqual(login.headers["Content-Type"], "text/html; charset=utf-8")
        let gzipped = try await registry.answer("http://localhost/hazards/gzip-encoded")
        XCTAssertEqual(gzipped.headers["Content-Encoding"], "gzip")
        XCTAssertEqual(gzipped.headers["Content-Type"], "image/png")
        XCTAssertEqual(Array(gzipped.body.prefix(2)), [0x1F, 0x8B])
        let unlabelled = try await registry.answer("http://localhost/hazards/gzip-unlabelled")
        XCTAssertNil(unlabelled.headers["Content-Encoding"])
        XCTAssertEqual(unlabelled.headers["Content-Type"], "image/png")
        XCTAssertEqual(Array(unlabelled.body.prefix(2)), [0x1F, 0x8B])
        let longer = try await registry.answer("http://localhost/hazards/length-longer-than-body")
        XCTAssertEqual(longer.truncateAfter, png.count / 2)
        let empty = try await registry.answer("http://localhost/hazards/empty-200")
        XCTAssertEqual(empty.status, 200)
        XCTAssertTrue(empty.body.isEmpty)
    }

    func testGzipAndDeflateStreamsInflateToTheOriginalBytes() throws {
        let png = try Hazard.gzipEncoded.imageData()
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("hazard-\(UUID().uuidString).gz")
        defer { try? FileManager.default.removeItem(at: scratch) }
        try ContentCoding.gzip.encode(png).write(to: scratch)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["gzip", "-dc", scratch.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let inflated = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        XCTAssertEqual(inflated, png)
    }

    func testCacheHazardsNumberEachRequestPerURLAndResetStartsAgain() async throws {
        let registry = hazards()
        for number in 1...3 {
            let response = try await registry.answer("http://localhost/hazards/changes-no-cache")
            XCTAssertEqual(response.headers["Cache-Control"], "no-cache")
            XCTAssertEqual(response.headers["X-Understudy-Request"], "\(number)")
            XCTAssertNil(response.headers["ETag"], "no validator: every answer is new")
            XCTAssertEqual(try RGBAImage(decoding: response.body), Hazard.numberedImage(number))
        }
        // Another URL keeps its own count.
        let other = try await registry.answer("http://localhost/hazards/changes-no-store")
        XCTAssertEqual(other.headers["X-Understudy-Request"], "1")
        XCTAssertEqual(other.headers["Cache-Control"], "no-store")
        try registry.reset()
        let again = try await registry.answer("http://localhost/hazards/changes-no-cache")
        XCTAssertEqual(again.headers["X-Understudy-Request"], "1", "reset() starts the count again")
        XCTAssertNotEqual(Hazard.numberedImage(1), Hazard.numberedImage(2))
    }

    func testErrorAfterImageTruncatedThenWholeAndNotModifiedWithoutValidator() async throws {
        let registry = hazards()
        let first = try await registry.answer("http://localhost/hazards/error-after-image")
        XCTAssertEqual(first.status, 200)
        XCTAssertEqual(ImageKind.detect(first.body), .png)
        let second = try await registry.answer("http://localhost/hazards/error-after-image")
        XCTAssertEqual(second.status, 503)
        XCTAssertEqual(second.headers["Content-Type"], "text/html; charset=utf-8")
        let cut = try await registry.answer("http://localhost/hazards/truncated-then-whole")
        XCTAssertEqual(cut.truncateAfter, cut.body.count / 2)
        let whole = try await registry.answer("http://localhost/hazards/truncated-then-whole")
        XCTAssertNil(whole.truncateAfter)
        XCTAssertEqual(try RGBAImage(decoding: whole.body), Hazard.numberedImage(2))
        let notModified = try await registry.answer("http://localhost/hazards/not-modified-without-validator")
        XCTAssertEqual(notModified.status, 304)
    }

    func testNegotiatedWithoutVaryChoosesByAcceptAndSendsNoVary() async throws {
        let registry = hazards()
        let webp = try await registry.answer("http://localhost/hazards/negotiated-without-vary", headers: ["Accept": "image/webp,*/*"])
        XCTAssertEqual(webp.headers["Content-Type"], "image/webp")
        XCTAssertNil(webp.headers["Vary"])
        let png = try await registry.answer("http://localhost/hazards/negotiated-without-vary", headers: ["Accept": "image/png"])
        XCTAssertEqual(png.headers["Content-Type"], "image/png")
        XCTAssertNil(png.headers["Vary"])
        XCTAssertEqual(try RGBAImage(decoding: png.body), Hazard.negotiatedWithoutVary.expected)
    }

    func testStubFilesServeAHazardByNameAndNameTheFileLineAndKnownNamesForAnUnknownOne() async throws {
        let sandbox = try StubFileSandbox()
        try sandbox.write("a.yaml", "stubs:\n  - request: { path: /avatar.jpg }\n    response: { hazard: orientation-6 }\n")
        let registry = StubRegistry()
        try registry.load(from: sandbox.stubs)
        let response = try await registry.answer("http://localhost/avatar.jpg")
        XCTAssertEqual(response.body, try Hazard.orientation6.imageData())

        try sandbox.write("a.yaml", "stubs:\n  - response:\n      hazard: orientation-9\n")
        let issues = sandbox.issues()
        XCTAssertEqual(issues.count, 1)
        XCTAssertTrue(issues[0].hasPrefix("Stubs/a.yaml:3: stubs[0].response.hazard: unknown hazard 'orientation-9'; expected one of orientation-1, orientation-2,"), issues[0])
        XCTAssertTrue(issues[0].hasSuffix("error-after-image, truncated-then-whole"), issues[0])
    }
}
