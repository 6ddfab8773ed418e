import Foundation
import Understudy
import UnderstudyImages
import XCTest

/// `understudy hazards` (a line each, `--json`, `--write DIR`) and `understudy serve --hazards`,
/// through the built binary.
final class HazardsCommandTests: XCTestCase {
    private var base: URL!

    override func setUpWithError() throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("understudy-hazards-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: base) }

    func testListsEveryHazardWithItsGroupAndSummaryAndPrintsTheCatalogueAsJSON() throws {
        let list = try runUnderstudy(["hazards"], in: base)
        XCTAssertEqual(list.status, 0)
        let lines = list.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, Hazard.allCases.count)
        XCTAssertTrue(lines[5].hasPrefix("orientation-6 "), String(lines[5]))
        XCTAssertTrue(lines[5].contains("  pixels   JPEG whose EXIF Orientation (IFD0) is 6"), String(lines[5]))
        let json = try runUnderstudy(["hazards", "--json"], in: base)
        XCTAssertEqual(json.status, 0)
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as! [String: Any]
        let entries = object["hazards"] as! [[String: Any]]
        XCTAssertEqual(entries.map { $0["name"] as! String }, Hazard.allNames)
        XCTAssertEqual(json.stdout, String(decoding: HazardCatalogue().jsonData, as: UTF8.self) + "\n")
    }

    func testWriteGivesEachBodyAndExpectedImageAndTheSameBytesOnEveryRun() throws {
        let first = try runUnderstudy(["hazards", "--write", "one"], in: base)
        XCTAssertEqual(first.status, 0, first.stderr)
        let second = try runUnderstudy(["hazards", "--write", "two"], in: base)
        XCTAssertEqual(second.status, 0, second.stderr)
        let one = base.appendingPathComponent("one"), two = base.appendingPathComponent("two")
        let names = try FileManager.default.contentsOfDirectory(atPath: one.path).sorted()
        XCTAssertEqual(names, try FileManager.default.contentsOfDirectory(atPath: two.path).sorted())
        for name in names {
            XCTAssertEqual(try Data(contentsOf: one.appendingPathComponent(name)), try Data(contentsOf: two.appendingPathComponent(name)), "\(name) differs between two runs")
        }
        XCTAssertTrue(names.contains("orientation-6.jpg"))
        XCTAssertTrue(names.contains("orientation-6.expected.png"))
        XCTAssertTrue(names.contains("bomb-webp.webp"))
        XCTAssertTrue(names.contains("gzip-encoded.gz"))
        XCTAssertTrue(names.contains("hazards.json"))
        XCTAssertEqual(try Data(contentsOf: one.appendingPathComponent("cmyk.jpg")), try Hazard.cmyk.imageData())
    }

    func testServeHazardsMountsTheCatalogueUnderHazards() throws {
        let started = try startUnderstudy(["serve", "--hazards", "--port", "0"])
        defer { _ = terminate(started.process) }
        let url = "http://127.0.0.1:\(started.port)"
        let catalogue = try JSONSerialization.jsonObject(with: try curlOutput([url + "/hazards/"])) as? [String: Any]
        XCTAssertEqual((catalogue?["hazards"] as? [Any])?.count, Hazard.allCases.count)
        XCTAssertEqual(try curlOutput([url + "/hazards/orientation-3"]), try Hazard.orientation3.imageData())
        let expected = try curlOutput([url + "/hazards/orientation-3/expected.png"])
        XCTAssertEqual(try RGBAImage(decoding: expected), Hazard.orientation3.expected)
    }
}
