import Foundation
import Understudy
import UnderstudyImages
import UnderstudyServer
import XCTest
import UnderstudyTestSupport

/// The hazard gallery in a real browser: headless Chromium opens `/__admin/hazards` and the
/// page itself judges each hazard Chromium loads against its expected image.
final class HazardGalleryChromiumTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("understudy-gallery-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: directory) }

    /// Every section's verdict once each judged one has one.
    private func verdicts(_ base: String) throws -> [String: String] {
        let driver = try ChromiumDriver(directory: directory)
        defer { driver.quit() }
        try driver.navigate(URL(string: "\(base)/__admin/hazards")!)
        try driver.wait(until: """
            document.readyState === 'complete' && document.querySelectorAll('section.hazard').length === \(Hazard.allCases.count) &&
            Array.from(document.querySelectorAll('section.hazard[data-outcome="pixels"], section.hazard[data-outcome="error"]')).every((s) => s.dataset.verdict)
            """, timeout: 30)
        let script = "Object.fromEntries(Array.from(document.querySelectorAll('section.hazard')).map((s) => [s.dataset.hazard, s.dataset.verdict || '']))"
        return try XCTUnwrap(driver.evaluate(script) as? [String: String])
    }

    func testChromiumPassesThePixelHazardsItHandlesAndASwappedExpectedImageFails() async throws {
        try requireEncoding(.jpeg, .webp, .gif)
        let registry = StubRegistry()
        registry.stubHazards(under: "/hazards")
        try await withServer(registry) { server in
            let base = server.baseURL.absoluteString
            let verdicts = try verdicts(base)
            let handled: [Hazard] = (1...8).map { Hazard(named: "orientation-\($0)")! } + [
                .orientationInIFD1, .cmyk, .ycck, .displayP3, .adobeRGB, .png16Bit, .pngGreyAlpha, .pngIndexedTransparency, .pngInterlaced,
                .contentTypeMissing, .contentTypeOctetStream, .contentTypeWrong, .extensionMismatch, .gzipEncoded, .metadataBeforePixels,
            ]
            for hazard in handled {
                XCTAssertEqual(verdicts[hazard.name], "pass", "\(hazard.name) in Chromium")
            }
            for hazard in [Hazard.html200, .captivePortal, .empty200, .gzipUnlabelled] {
                XCTAssertEqual(verdicts[hazard.name], "pass", "\(hazard.name): Chromium refuses it, as a correct client does")
            }
            XCTAssertEqual(verdicts["bomb-png"], "", "bombs wait for a click: no verdict")

            // A broken hazard: orientation-6's expected image swapped for cmyk's.
            registry.stub(
                .path("/hazards/orientation-6/expected.png"), priority: 10,
                response: .data(try Hazard.cmyk.expected!.pngData(), contentType: "image/png")
            )
            XCTAssertEqual(try self.verdicts(base)["orientation-6"], "fail")
        }
    }
}
