import Foundation
import Understudy
import UnderstudyURLProtocol
import XCTest
import UnderstudyTestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// CDN-style resizing, JPEG and damage as a URLSession client gets them, checked with Pillow.
final class URLSessionImageResizeTests: XCTestCase {
    private static let python = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent(".venv/bin/python").path

    /// Pillow's reading of each body: `FORMAT WIDTHxHEIGHT progressive` or `error Name`.
    private func pillow(_ bodies: [Data], file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("understudy-resize-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var paths: [String] = []
        for (index, body) in bodies.enumerated() {
            let url = directory.appendingPathComponent("\(index)")
            try body.write(to: url)
            paths.append(url.path)
        }
        let script = """
            import sys
            from PIL import Image, ImageFile
            ImageFile.LOAD_TRUNCATED_IMAGES = False
            for path in sys.argv[1:]:
                try:
                    im = Image.open(path)
                    im.load()
                    print('%s %dx%d %d' % (im.format, im.size[0], im.size[1], im.info.get('progressive', 0)))
                except Exception as e:
                    print('error', type(e).__name__)
            """
        let (status, output) = try runTool(URL(fileURLWithPath: Self.python), ["-c", script] + paths, file: file, line: line)
        XCTAssertEqual(status, 0, "Pillow (make test-deps installs it in .venv)", file: file, line: line)
        return String(decoding: output, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    private func get(_ session: URLSession, _ address: String) async throws -> (Data, HTTPURLResponse) {
        let (data, response) = try await session.data(from: URL(string: address)!)
        return (data, try XCTUnwrap(response as? HTTPURLResponse))
    }

    func testWidthFromTheQueryUnderContainAndCover() async throws {
        try requireEncoding(.jpeg, .webp)
        let stubs = StubRegistry(transcoder: ImageTranscoder())
        let photo = ImageSource.generated(width: 1600, height: 1200, pattern: .photo)
        stubs.stub(.path("/contain.jpg"), response: .image(photo, as: .jpeg(quality: 85),
                                                           resize: .init(width: .query("w"), height: .query("h"))))
        stubs.stub(.path("/cover.jpg"), response: .image(photo, as: .jpegProgressive(quality: 85),
                                                         resize: .init(width: .query("w"), height: .query("h"), fit: .cover)))
        stubs.stub(.path("/fixed.webp"), response: .image(photo, as: .webp(quality: 80), resize: .init(width: 400)))
        let session = URLSession(configuration: .stubbed(by: stubs))
        var bodies: [Data] = []
        for address in ["https://cdn.example.com/contain.jpg?w=320", "https://cdn.example.com/cover.jpg?w=320&h=320",
                        "https://cdn.example.com/contain.jpg?w=320&h=320", "https://cdn.example.com/fixed.webp"] {
            let (data, http) = try await get(session, address)
            XCTAssertEqual(http.statusCode, 200, address)
            XCTAssertEqual(http.value(forHTTPHeaderField: "Content-Length"), String(data.count))
            bodies.append(data)
        }
        XCTAssertEqual(try pillow(bodies), ["JPEG 320x240 0", "JPEG 320x320 1", "JPEG 320x240 0", "WEBP 400x300 0"])

        let (message, bad) = try await get(session, "https://cdn.example.com/cover.jpg?w=wide")
        XCTAssertEqual(bad.statusCode, 400)
        XCTAssertEqual(String(decoding: message, as: UTF8.self),
                       "400 Bad Request: query parameter 'w' (the resize width) is 'wide'; expected a positive integer\n")
    }

    func testDamagedImagesFailInPillowWithTheStubbedStatusAndType() async throws {
        try requireEncoding(.webp, .jpeg)
        let stubs = StubRegistry(transcoder: ImageTranscoder())
        let photo = ImageSource.generated(width: 120, height: 90, pattern: .photo)
        let formats: [(String, ServedImageFormat, String)] = [("png", .png, "image/png"), ("jpg", .jpeg(quality: 85), "image/jpeg"),
                                                        ("webp", .webp(quality: 80), "image/webp")]
        for (ext, format, _) in formats {
            for damage in ImageDamage.allCases {
                stubs.stub(.path("/\(damage).\(ext)"), response: .image(photo, as: format, damage: damage).status(200))
            }
        }
        let session = URLSession(configuration: .stubbed(by: stubs))
        var bodies: [Data] = []
        var labels: [String] = []
        for (ext, _, type) in formats {
            for damage in ImageDamage.allCases {
                let (data, http) = try await get(session, "https://img.example.com/\(damage).\(ext)")
                XCTAssertEqual(http.statusCode, 200)
                XCTAssertEqual(http.value(forHTTPHeaderField: "Content-Type"), type, "\(damage).\(ext)")
                bodies.append(data)
                labels.append("\(damage).\(ext)")
            }
        }
        for (label, verdict) in zip(labels, try pillow(bodies)) {
            if label.hasPrefix("garbage-tail") {
                XCTAssertTrue(verdict.hasSuffix("120x90 0"), "\(label): \(verdict)")
            } else {
                XCTAssertTrue(verdict.hasPrefix("error"), "\(label): Pillow read \(verdict)")
            }
        }
    }
}
