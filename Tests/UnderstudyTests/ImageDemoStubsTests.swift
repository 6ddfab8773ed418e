import Foundation
import Understudy
import UnderstudyImages
import XCTest

/// The demo stubs in `Stubs/` (what `make serve` serves): their images are made by our own code,
/// and every demo stub loads and answers as its name promises.
///
/// To remake the images: `UNDERSTUDY_WRITE_DEMO_IMAGES=1 swift test --filter ImageDemoStubsTests`.
final class ImageDemoStubsTests: XCTestCase {
    /// The repository's `Stubs/`, found from this file's path.
    static let stubsDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Stubs", isDirectory: true)

    /// Each demo image: its file name and how it is made.
    static func demoImages() throws -> [(name: String, image: RGBAImage, encode: (RGBAImage) throws -> Data, exact: Bool)] {
        [
            ("photo.webp", try ImageGenerator.photoLike(width: 320, height: 240, seed: 7), { try $0.webPData(quality: 80) }, false),
            ("photo.png", try ImageGenerator.photoLike(width: 160, height: 120, seed: 11), { try $0.pngData() }, true),
            ("badge.png", try ImageGenerator.photoLike(width: 96, height: 96, seed: 3, opaque: false), { try $0.pngData() }, true),
            ("photo.jpg", try ImageGenerator.photoLike(width: 400, height: 300, seed: 13), { try $0.jpegData(quality: 85) }, false),
            ("photo.avif", try ImageGenerator.photoLike(width: 320, height: 240, seed: 17, opaque: false), { try $0.avifData(quality: 60, speed: 6) }, false),
            ("photo.heic", try ImageGenerator.photoLike(width: 320, height: 240, seed: 19), { try $0.heicData(quality: 60) }, false),
            ("photo.gif", try ImageGenerator.photoLike(width: 160, height: 120, seed: 23), { try $0.gifData() }, false),
        ]
    }

    func testDemoImagesAreOursAndSmall() throws {
        let images = Self.stubsDirectory.appendingPathComponent("images")
        let write = ProcessInfo.processInfo.environment["UNDERSTUDY_WRITE_DEMO_IMAGES"] == "1"
        if write { try FileManager.default.createDirectory(at: images, withIntermediateDirectories: true) }
        for demo in try Self.demoImages() {
            let url = images.appendingPathComponent(demo.name)
            if write { try demo.encode(demo.image).write(to: url) }
            let data = try Data(contentsOf: url)
            XCTAssertLessThan(data.count, 100_000, demo.name)
            let decoded = try RGBAImage(decoding: data)
            XCTAssertEqual(decoded.width, demo.image.width, demo.name)
            XCTAssertEqual(decoded.height, demo.image.height, demo.name)
            if demo.exact { XCTAssertEqual(decoded, demo.image, demo.name) }
        }
    }

    func testEveryDemoStubLoadsAndAnswers() async throws {
        let stubs = StubRegistry(transcoder: ImageTranscoder())
        try stubs.load(from: Self.stubsDirectory)
        let photoPNG = try Data(contentsOf: Self.stubsDirectory.appendingPathComponent("images/photo.png"))
        let photoWebP = try RGBAImage(decoding: Data(contentsOf: Self.stubsDirectory.appendingPathComponent("images/photo.webp")))
        let chromium = "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8"
        let photoJPEG = try Data(contentsOf: Self.stubsDirectory.appendingPathComponent("images/photo.jpg"))
        func size(_ response: PreparedResponse) throws -> String {
            let image = try RGBAImage(decoding: response.body)
            return "\(image.width)x\(image.height)"
        }

        // Each demo stub, the request that reaches it, and what it must answer.
        struct Expectation {
            var url: String
            var accept: String?
            var stub: String
            var status = 200
            var contentType: String?
            var check: (PreparedResponse) throws -> Void = { _ in }
        }
        let expectations: [Expectation] = [
            Expectation(url: "http://localhost/images/photo.png", stub: "canned-png", contentType: "image/png") {
                XCTAssertEqual($0.body, photoPNG)
            },
            Expectation(url: "http://localhost/cats/1.webp", stub: "webp-as-png", contentType: "image/png") {
                XCTAssertEqual(try RGBAImage(decoding: $0.body), photoWebP)
            },
            Expectation(url: "http://localhost/negotiated/photo", accept: chromium, stub: "negotiated", contentType: "image/webp") {
                XCTAssertEqual($0.headers["Vary"], "Accept")
            },
            Expectation(url: "http://localhost/negotiated/photo", accept: "image/png", stub: "negotiated", contentType: "image/png") {
                XCTAssertEqual(try RGBAImage(decoding: $0.body), photoWebP)
            },
            Expectation(url: "http://localhost/negotiated/photo", accept: "text/html", stub: "negotiated", status: 406,
                        contentType: "text/plain; charset=utf-8"),
            Expectation(url: "http://localhost/generated/checkerboard.png", stub: "generated-checkerboard", contentType: "image/png") {
                XCTAssertEqual(try RGBAImage(decoding: $0.body), try ImageGenerator.generate(width: 256, height: 256, pattern: .checkerboard))
            },
            Expectation(url: "http://localhost/generated/gradient.webp", stub: "generated-gradient", contentType: "image/webp") {
                XCTAssertEqual(try RGBAImage(decoding: $0.body).width, 320)
            },
            Expectation(url: "http://localhost/generated/solid.png", stub: "generated-solid", contentType: "image/png") {
                XCTAssertEqual(Array(try RGBAImage(decoding: $0.body).pixels.prefix(4)), [0xFF, 0x88, 0x00, 0xFF])
            },
            Expectation(url: "http://localhost/transcoded/photo.png", stub: "transcoded-file", contentType: "image/png") {
                XCTAssertEqual(try RGBAImage(decoding: $0.body), photoWebP)
            },
            Expectation(url: "http://localhost/images/badge.webp", stub: "png-as-lossless-webp", contentType: "image/webp") {
                let badge = try RGBAImage(decoding: Data(contentsOf: Self.stubsDirectory.appendingPathComponent("images/badge.png")))
                XCTAssertEqual(try RGBAImage(decoding: $0.body), badge)
            },
            Expectation(url: "http://localhost/images/photo.jpg", stub: "canned-jpeg", contentType: "image/jpeg") {
                XCTAssertEqual($0.body, photoJPEG)
            },
            Expectation(url: "http://localhost/jpeg/photo.jpg", stub: "png-as-jpeg", contentType: "image/jpeg") {
                XCTAssertEqual($0.body, try RGBAImage(decoding: photoPNG).jpegData(quality: 85))
            },
            Expectation(url: "http://localhost/jpeg/progressive.jpg", stub: "progressive-jpeg", contentType: "image/jpeg") {
                XCTAssertEqual($0.body, try ImageGenerator.generate(width: 640, height: 480, pattern: .photo).jpegData(quality: 85, progressive: true))
            },
            Expectation(url: "http://localhost/cdn/photo?w=160&h=160", accept: chromium, stub: "cdn-resize", contentType: "image/webp") {
                XCTAssertEqual(try size($0), "160x160")
                XCTAssertEqual($0.headers["Vary"], "Accept")
            },
            Expectation(url: "http://localhost/cdn/photo?w=200", accept: "image/jpeg", stub: "cdn-resize", contentType: "image/jpeg") {
                XCTAssertEqual(try size($0), "200x150")
            },
            Expectation(url: "http://localhost/cdn/photo", accept: "image/jpeg", stub: "cdn-resize", contentType: "image/jpeg") {
                XCTAssertEqual($0.body, photoJPEG, "no resize asked: the JPEG as it is")
            },
            Expectation(url: "http://localhost/animated/spinner.webp", stub: "animated-webp", contentType: "image/webp") {
                XCTAssertEqual(try size($0), "96x96")
                XCTAssertEqual(String(decoding: $0.body[30..<34], as: UTF8.self), "ANIM", "an animation chunk after VP8X")
            },
            Expectation(url: "http://localhost/damaged/truncated.jpg", stub: "damaged-truncated", contentType: "image/jpeg") {
                XCTAssertEqual($0.body, ImageDamage.truncated.apply(to: try RGBAImage(decoding: photoJPEG).jpegData(quality: 85)))
            },
            Expectation(url: "http://localhost/damaged/bad-checksum.png", stub: "damaged-checksum", contentType: "image/png") {
                XCTAssertThrowsError(try RGBAImage(decoding: $0.body))
            },
            Expectation(url: "http://localhost/damaged/wrong-signature.png", stub: "damaged-signature", contentType: "image/png") {
                XCTAssertNil(ImageKind.detect($0.body))
            },
            Expectation(url: "http://localhost/damaged/garbage-tail.jpg", stub: "damaged-tail", contentType: "image/jpeg") {
                XCTAssertEqual($0.body.prefix(photoJPEG.count), photoJPEG)
                XCTAssertEqual($0.body.count, photoJPEG.count + 1024)
            },
            Expectation(url: "http://localhost/images/photo.avif", stub: "canned-avif", contentType: "image/avif") {
                XCTAssertEqual(try size($0), "320x240")
            },
            Expectation(url: "http://localhost/images/photo.heic", stub: "canned-heic", contentType: "image/heic") {
                XCTAssertEqual(try size($0), "320x240")
            },
            Expectation(url: "http://localhost/images/photo.gif", stub: "canned-gif", contentType: "image/gif") {
                XCTAssertEqual(try size($0), "160x120")
            },
            Expectation(url: "http://localhost/formats/photo.avif", stub: "png-as-avif", contentType: "image/avif") {
                XCTAssertEqual($0.body, try RGBAImage(decoding: photoPNG).avifData(quality: 60, speed: 8))
            },
            Expectation(url: "http://localhost/formats/photo.heic", stub: "png-as-heic", contentType: "image/heic") {
                XCTAssertEqual($0.body, try RGBAImage(decoding: photoPNG).heicData(quality: 50))
            },
            Expectation(url: "http://localhost/formats/photo.gif", stub: "jpeg-as-gif", contentType: "image/gif") {
                XCTAssertEqual(try size($0), "400x300")
            },
            Expectation(url: "http://localhost/animated/spinner.avif", stub: "animated-avif", contentType: "image/avif") {
                XCTAssertEqual(try RGBAImage.frames(decoding: $0.body).count, 8)
            },
            Expectation(url: "http://localhost/animated/spinner.gif", stub: "animated-gif", contentType: "image/gif") {
                XCTAssertEqual(try RGBAImage.frames(decoding: $0.body), try ImageGenerator.frames(width: 96, height: 96, pattern: .checkerboard, count: 8))
            },
            Expectation(url: "http://localhost/formats/negotiated", accept: chromium, stub: "negotiated-every-format", contentType: "image/avif"),
            Expectation(url: "http://localhost/formats/negotiated", accept: "image/webp,image/avif,image/jxl,image/heic,image/heic-sequence,video/*;q=0.8,image/png,image/svg+xml,image/*;q=0.8,*/*;q=0.5",
                        stub: "negotiated-every-format", contentType: "image/heic"),
            Expectation(url: "http://localhost/formats/negotiated", accept: "image/png", stub: "negotiated-every-format", contentType: "image/png"),
            Expectation(url: "http://localhost/damaged/bad-checksum.avif", stub: "damaged-avif", contentType: "image/avif") {
                XCTAssertThrowsError(try RGBAImage(decoding: $0.body))
            },
            Expectation(url: "http://localhost/old.png", stub: "redirect", status: 301) {
                XCTAssertEqual($0.headers["Location"], "/images/photo.png")
            },
            Expectation(url: "http://localhost/gone.png", stub: "not-found", status: 404),
            Expectation(url: "http://localhost/flaky/a.png", stub: "fault-reset") {
                XCTAssertEqual($0.fault, .connectionReset)
            },
            Expectation(url: "http://localhost/slow.png", stub: "slow-edge", contentType: "image/png") {
                XCTAssertEqual($0.bandwidth, .edge)
                XCTAssertEqual($0.delay, .milliseconds(200))
            },
            Expectation(url: "http://localhost/truncated.png", stub: "truncated", contentType: "image/png") {
                XCTAssertEqual($0.truncateAfter, 1024)
            },
            Expectation(url: "http://localhost/cached/photo.png", stub: "cached-photo", contentType: "image/png") {
                XCTAssertEqual($0.headers["Cache-Control"], "no-cache")
                XCTAssertNotNil($0.headers["ETag"])
                XCTAssertNotNil($0.headers["Last-Modified"])
            },
            Expectation(url: "http://localhost/resume/photo.webp", stub: "resumable-photo", contentType: "image/webp") {
                XCTAssertEqual($0.truncateAfter, 4000, "the first use is cut")
            },
            Expectation(url: "http://localhost/gated/photo.png", stub: "gated-photo", contentType: "image/png") {
                XCTAssertEqual($0.pause, BodyPause(afterBytes: 2048, gate: "first-bytes"))
            },
            // Networks and pieces (Stubs/networks.yaml).
            Expectation(url: "http://localhost/network/slow-3g/photo.jpg", stub: "slow-3g-photo", contentType: "image/jpeg") {
                XCTAssertEqual($0.network, .slow3G)
                XCTAssertEqual($0.delay, .seconds(2))
                XCTAssertEqual($0.bandwidth, .kilobitsPerSecond(400))
            },
            Expectation(url: "http://localhost/network/custom/photo.png", stub: "custom-network-photo", contentType: "image/png") {
                XCTAssertEqual($0.network, .custom(latency: .milliseconds(300), rate: .kilobitsPerSecond(800)))
            },
            Expectation(url: "http://localhost/network/scans/photo.jpg", stub: "progressive-by-scans", contentType: "image/jpeg") {
                let scans = try XCTUnwrap(ImageBoundaries.jpegScanStarts($0.body))
                XCTAssertGreaterThan(scans.count, 3, "progressive")
                XCTAssertEqual($0.pieces, PreparedResponse.Pieces(offsets: Array(scans.dropFirst()), interval: .milliseconds(400)))
            },
            Expectation(url: "http://localhost/network/frames/spinner.webp", stub: "animation-by-frames", contentType: "image/webp") {
                XCTAssertEqual($0.pieces?.offsets.count, 5, "six frames, six pieces")
            },
            Expectation(url: "http://localhost/network/pieces/photo.png", stub: "pieces-at-offsets", contentType: "image/png") {
                XCTAssertEqual($0.pieces, PreparedResponse.Pieces(offsets: [1024, 8192], interval: .milliseconds(500)))
                XCTAssertEqual($0.body, photoPNG)
            },
        ]
        for expectation in expectations {
            let headers: HeaderFields = expectation.accept.map { ["Accept": $0] } ?? [:]
            let response = try await stubs.answer(expectation.url, headers: headers)
            let label = "\(expectation.url) \(expectation.accept ?? "")"
            XCTAssertEqual(response.stubName, expectation.stub, label)
            XCTAssertEqual(response.status, expectation.status, label)
            if let type = expectation.contentType { XCTAssertEqual(response.headers["Content-Type"], type, label) }
            try expectation.check(response)
        }
        // The resumable demo answers the resume with the rest of the original bytes.
        let responder = StubResponder(registry: stubs, transport: .inProcess, upstream: nil)
        let resumed = await responder.answer(StubRequest(url: URL(string: "http://localhost/resume/photo.webp")!, headers: ["Range": "bytes=4000-"])).response
        let photoWebPBytes = try Data(contentsOf: Self.stubsDirectory.appendingPathComponent("images/photo.webp"))
        XCTAssertEqual(resumed.status, 206)
        XCTAssertEqual(photoWebPBytes.prefix(4000) + resumed.body, photoWebPBytes)
        let demoed = Set(expectations.map(\.stub))
        let unexercised = stubs.stubs.map(\.name).filter { !demoed.contains($0) }
        XCTAssertEqual(unexercised, [], "every demo stub has an expectation here")
    }

    func testCheckPassesOnTheDemoStubs() {
        let check = StubFileCheck(paths: [Self.stubsDirectory])
        XCTAssertEqual(check.errors, [])
        XCTAssertTrue(check.isValid)
    }
}
