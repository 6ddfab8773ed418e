import Foundation
import Understudy
import UnderstudyImages
import XCTest

/// SPEC section 12 in stub files: JPEG, `formats:`, `resize:`, `damage:`, animations and the
/// `photo` pattern; how they answer, and the exact lines `understudy check` prints for mistakes.
final class StubFileImageFeaturesTests: XCTestCase {
    private var sandbox: StubFileSandbox!

    override func setUpWithError() throws { sandbox = try StubFileSandbox() }
    override func tearDown() { sandbox = nil }

    private func registry(_ text: String) throws -> (StubRegistry, ImageTranscoder) {
        try sandbox.write("a.yaml", text)
        let transcoder = ImageTranscoder()
        let registry = StubRegistry(transcoder: transcoder)
        try registry.load(from: sandbox.stubs)
        return (registry, transcoder)
    }

    private func assertIssues(_ text: String, _ expected: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        try sandbox.write("a.yaml", text)
        XCTAssertEqual(sandbox.issues(), expected, file: file, line: line)
    }

    /// An answer's status, Content-Type and decoded size, e.g. `200 image/jpeg 320x240`.
    private func summary(_ response: PreparedResponse) -> String {
        let size = (try? RGBAImage(decoding: response.body)).map { "\($0.width)x\($0.height)" } ?? "undecodable"
        return "\(response.status) \(response.headers["Content-Type"] ?? "-") \(size)"
    }

    // MARK: - JPEG

    func testJPEGAndProgressiveJPEGFromAFileAndFromTranscode() async throws {
        let photo = try ImageGenerator.photoLike(width: 80, height: 60, seed: 3)
        try sandbox.write("images/p.png", photo.pngData())
        try sandbox.write("images/p.jpg", photo.jpegData(quality: 90))
        let (stubs, _) = try registry("""
            stubs:
              - request: { path: /default }
                response: { image: { file: images/p.png, as: jpeg } }
              - request: { path: /progressive }
                response: { image: { file: images/p.png, as: jpeg-progressive, quality: 60 } }
              - request: { path: /transcoded }
                response: { file: images/p.png, transcode: jpeg }
              - request: { path: /jpeg-as-png }
                response: { image: { file: images/p.jpg, as: png } }
              - request: { path: /original }
                response: { file: images/p.jpg }
            """)
        let standard = try await stubs.answer("http://x.test/default")
        XCTAssertEqual(standard.headers["Content-Type"], "image/jpeg")
        XCTAssertEqual(standard.body, try photo.jpegData(quality: 85), "quality 85 by default")
        let progressive = try await stubs.answer("http://x.test/progressive")
        XCTAssertEqual(progressive.body, try photo.jpegData(quality: 60, progressive: true))
        let transcoded = try await stubs.answer("http://x.test/transcoded")
        XCTAssertEqual(transcoded.headers["Content-Type"], "image/jpeg")
        XCTAssertEqual(transcoded.body, standard.body)
        let png = try await stubs.answer("http://x.test/jpeg-as-png")
        XCTAssertEqual(png.headers["Content-Type"], "image/png")
        XCTAssertEqual(try RGBAImage(decoding: png.body), try RGBAImage(decoding: photo.jpegData(quality: 90)))
        let original = try await stubs.answer("http://x.test/original")
        XCTAssertEqual(original.headers["Content-Type"], "image/jpeg", "sniffed from the bytes")
    }

    // MARK: - Negotiation among formats

    func testNegotiateAmongFormatsTakesTheHighestQThenTheListOrder() async throws {
        let (stubs, _) = try registry("""
            stubs:
              - request: { path: /cdn }
                response: { image: { generate: { width: 40, height: 30, pattern: photo }, as: negotiate, formats: [webp, jpeg] } }
              - request: { path: /jpeg-first }
                response: { image: { generate: { width: 40, height: 30, pattern: photo }, as: negotiate, formats: [jpeg, png, webp] } }
            """)
        let cases: [(String, String?, String)] = [
            ("/cdn", "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8", "200 image/webp"),
            ("/cdn", "image/jpeg", "200 image/jpeg"),
            ("/cdn", "image/webp;q=0.5, image/jpeg;q=0.9", "200 image/jpeg"),
            ("/cdn", "image/*", "200 image/webp"),
            ("/cdn", nil, "200 image/webp"),
            ("/cdn", "image/png", "406 text/plain; charset=utf-8"),
            ("/jpeg-first", "image/*", "200 image/jpeg"),
            ("/jpeg-first", "image/webp, image/png;q=0.9", "200 image/webp"),
        ]
        for (path, accept, expected) in cases {
            let response = try await stubs.answer("http://x.test\(path)", headers: accept.map { ["Accept": $0] } ?? [:])
            XCTAssertEqual("\(response.status) \(response.headers["Content-Type"] ?? "-")", expected, "\(path) \(accept ?? "no Accept")")
            XCTAssertEqual(response.headers["Vary"], "Accept", "\(path) \(accept ?? "")")
            if response.status == 200 {
                XCTAssertEqual(ImageKind.detect(response.body)?.mimeType, response.headers["Content-Type"])
            }
        }
        let refused = try await stubs.answer("http://x.test/cdn", headers: ["Accept": "image/png"])
        XCTAssertEqual(refused.text, "406 Not Acceptable: the Accept header \"image/png\" admits none of the formats on offer: image/webp, image/jpeg\n")
    }

    // MARK: - Resize

    func testResizeFromTheQuery() async throws {
        let (stubs, transcoder) = try registry("""
            stubs:
              - request: { path: /photo.jpg }
                response:
                  image:
                    generate: { width: 1600, height: 1200, pattern: photo }
                    as: jpeg
                    resize: { width: '{query.w}', height: '{query.h}', fit: cover }
              - request: { path: /contain.png }
                response:
                  image: { generate: { width: 1600, height: 1200, pattern: gradient }, as: png, resize: { width: '{query.w}', height: '{query.h}' } }
              - request: { path: /fixed.webp }
                response:
                  image: { generate: { width: 300, height: 100, pattern: checkerboard }, as: webp, resize: { width: 30, height: 30, fit: fill } }
            """)
        let cases: [(String, String)] = [
            ("/photo.jpg?w=320", "200 image/jpeg 320x240"),
            ("/photo.jpg?w=320&h=320", "200 image/jpeg 320x320"),
            ("/photo.jpg?h=120", "200 image/jpeg 160x120"),
            ("/photo.jpg", "200 image/jpeg 1600x1200"),
            ("/photo.jpg?w=&h=", "200 image/jpeg 1600x1200"),
            ("/contain.png?w=320&h=320", "200 image/png 320x240"),
            ("/contain.png?w=320", "200 image/png 320x240"),
            ("/fixed.webp", "200 image/webp 30x30"),
        ]
        for (path, expected) in cases {
            let response = try await stubs.answer("http://x.test\(path)")
            XCTAssertEqual(summary(response), expected, path)
        }
        let before = transcoder.statistics
        let again = try await stubs.answer("http://x.test/photo.jpg?w=320")
        XCTAssertEqual(summary(again), "200 image/jpeg 320x240")
        XCTAssertEqual(transcoder.statistics.codecCalls, before.codecCalls, "a repeated resize comes from the cache")
        XCTAssertEqual(transcoder.statistics.resizes, before.resizes)
    }

    func testBadResizeParametersAnswer400NamingTheParameter() async throws {
        let (stubs, _) = try registry("""
            stubs:
              - request: { path: /p.png }
                response:
                  image: { generate: { width: 160, height: 120, pattern: photo }, as: png, resize: { width: '{query.w}', height: '{query.h}' } }
            """)
        let cases: [(String, String)] = [
            ("/p.png?w=abc", "400 Bad Request: query parameter 'w' (the resize width) is 'abc'; expected a positive integer\n"),
            ("/p.png?w=0", "400 Bad Request: query parameter 'w' (the resize width) is '0'; expected a positive integer\n"),
            ("/p.png?h=-5", "400 Bad Request: query parameter 'h' (the resize height) is '-5'; expected a positive integer\n"),
            ("/p.png?w=1.5", "400 Bad Request: query parameter 'w' (the resize width) is '1.5'; expected a positive integer\n"),
            ("/p.png?w=100000&h=100000",
             "400 Bad Request: a resize to 100000x100000 (query parameters w=100000, h=100000) is over the pixel limit of 67108864 pixels\n"),
            ("/p.png?w=99999999999",
             "400 Bad Request: query parameter 'w' (the resize width) is 99999999999, over the pixel limit of 67108864\n"),
            ("/p.png?w=60000",
             "400 Bad Request: the resize asked for (query parameter w=60000) cannot be done: cannot resize a 160x120 image to 60000x45000 (60000x? contain): the result is over the limit of 67108864 pixels\n"),
        ]
        for (path, message) in cases {
            let request = StubRequest(method: "GET", url: URL(string: "http://x.test\(path)")!, headers: [:])
            guard let (response, _) = await stubs.respond(to: request).failure else {
                XCTFail("\(path) did not fail")
                continue
            }
            XCTAssertEqual(response.status, 400, path)
            XCTAssertEqual(response.text, message, path)
        }
    }

    // MARK: - Damage

    func testDamageKeepsTheStatusAndContentTypeAndIsCached() async throws {
        let photo = try ImageGenerator.photoLike(width: 48, height: 32)
        try sandbox.write("images/p.png", photo.pngData())
        let (stubs, transcoder) = try registry("""
            stubs:
              - request: { path: /checksum.png }
                response: { status: 200, image: { file: images/p.png, as: png, damage: bad-checksum } }
              - request: { path: /cut.jpg }
                response: { status: 203, image: { file: images/p.png, as: jpeg, damage: truncated } }
              - request: { path: /signature.webp }
                response: { image: { file: images/p.png, as: webp, damage: wrong-signature } }
              - request: { path: /tail.png }
                response: { image: { file: images/p.png, damage: garbage-tail } }
            """)
        let checksum = try await stubs.answer("http://x.test/checksum.png")
        XCTAssertEqual(checksum.status, 200)
        XCTAssertEqual(checksum.headers["Content-Type"], "image/png")
        XCTAssertEqual(checksum.body, ImageDamage.badChecksum.apply(to: try photo.pngData()))
        let cut = try await stubs.answer("http://x.test/cut.jpg")
        XCTAssertEqual(cut.status, 203)
        XCTAssertEqual(cut.headers["Content-Type"], "image/jpeg")
        XCTAssertEqual(cut.body, ImageDamage.truncated.apply(to: try photo.jpegData()))
        XCTAssertEqual(cut.headers["Content-Length"], String(cut.body.count))
        let signature = try await stubs.answer("http://x.test/signature.webp")
        XCTAssertEqual(signature.headers["Content-Type"], "image/webp", "not sniffed from the damaged bytes")
        XCTAssertNil(ImageKind.detect(signature.body))
        let tail = try await stubs.answer("http://x.test/tail.png")
        XCTAssertEqual(tail.headers["Content-Type"], "image/png")
        XCTAssertEqual(tail.body.prefix(tail.body.count - 1024), try photo.pngData())

        let before = transcoder.statistics
        let repeated = try await stubs.answer("http://x.test/checksum.png")
        XCTAssertEqual(repeated.body, checksum.body)
        XCTAssertEqual(transcoder.statistics.codecCalls, before.codecCalls, "the damaged encoding comes from the cache")
        XCTAssertEqual(transcoder.statistics.hits, before.hits + 1)
    }

    // MARK: - Animation

    func testGeneratedAnimationIsAnAnimatedWebPAndItsFirstFrameAsPNG() async throws {
        let (stubs, _) = try registry("""
            stubs:
              - request: { path: /spinner.webp }
                response: { image: { generate: { width: 32, height: 32, pattern: checkerboard, frames: 4, frameDuration: 50ms }, as: webp } }
              - request: { path: /spinner.png }
                response: { image: { generate: { width: 32, height: 32, pattern: checkerboard, frames: 4 }, as: png } }
            """)
        let webp = try await stubs.answer("http://x.test/spinner.webp")
        XCTAssertEqual(webp.headers["Content-Type"], "image/webp")
        let chunks = Self.riffChunks(webp.body)
        XCTAssertEqual(chunks.filter { $0 == "ANMF" }.count, 4, "\(chunks)")
        XCTAssertTrue(chunks.contains("ANIM"))
        let png = try await stubs.answer("http://x.test/spinner.png")
        let frames = try ImageGenerator.frames(width: 32, height: 32, pattern: .checkerboard, count: 4)
        XCTAssertEqual(try RGBAImage(decoding: png.body), frames[0])
        XCTAssertNotEqual(frames[0], frames[1])
    }

    /// The four-character codes of a WebP's top-level chunks.
    static func riffChunks(_ data: Data) -> [String] {
        let bytes = [UInt8](data)
        var chunks: [String] = []
        var index = 12
        while index + 8 <= bytes.count {
            chunks.append(String(decoding: bytes[index..<index + 4], as: UTF8.self))
            let size = Int(bytes[index + 4]) | Int(bytes[index + 5]) << 8 | Int(bytes[index + 6]) << 16 | Int(bytes[index + 7]) << 24
            index += 8 + size + size % 2
        }
        return chunks
    }

    func testPhotoPatternIsDeterministicAndPhotoLike() async throws {
        let (stubs, _) = try registry("""
            stubs:
              - response: { image: { generate: { width: 256, height: 192, pattern: photo }, as: png } }
            """)
        let response = try await stubs.answer("http://x.test/photo.png")
        let image = try RGBAImage(decoding: response.body)
        XCTAssertEqual(image, try ImageGenerator.photoLike(width: 256, height: 192, seed: 1))
        XCTAssertEqual(image, try ImageGenerator.generate(width: 256, height: 192, pattern: .photo))
        // Photo-like: JPEG at quality 85 spends 1 to 4 bits a pixel on it, as on photographs,
        // several times what flat test patterns cost.
        let bitsPerPixel = Double(try image.jpegData().count * 8) / Double(256 * 192)
        XCTAssertTrue((1.0...4.0).contains(bitsPerPixel), "\(bitsPerPixel) bits a pixel")
        let board = try ImageGenerator.generate(width: 256, height: 192, pattern: .checkerboard).jpegData().count
        XCTAssertGreaterThan(try image.jpegData().count, 3 * board)
    }

    // MARK: - Mistakes

    func testMistakesInTheNewKeys() throws {
        try sandbox.write("images/g.png", ImageGenerator.generate(width: 8, height: 8, pattern: .gradient).pngData())
        try assertIssues("""
            stubs:
              - response:
                  image: { file: images/g.png, as: png, formats: [webp] }
              - response:
                  image: { file: images/g.png, as: negotiate, formats: [webp, jxl, webp] }
              - response:
                  image: { file: images/g.png, as: negotiate, formats: [] }
              - response:
                  image: { file: images/g.png, resize: { fit: cover } }
              - response:
                  image: { file: images/g.png, resize: { width: '{w}', height: 0, fit: squash } }
              - response:
                  image: { file: images/g.png, resize: { width: 10000, height: 10000 } }
              - response:
                  image: { file: images/g.png, damage: smashed }
              - response:
                  image: { generate: { width: 8, height: 8, frameDuration: 10ms } }
              - response:
                  image: { generate: { width: 8, height: 8, frames: 0 } }
              - response:
                  image: { generate: { width: 1000, height: 1000, frames: 100, frameDuration: soon } }
              - response:
                  image: { file: images/g.png, as: jpeg, quality: 0 }
              - response:
                  image: { generate: { width: 4000, height: 4000, frames: 5 } }
            """, [
            "Stubs/a.yaml:3: stubs[0].response.image.formats: formats applies only to as: negotiate; found as: png",
            "Stubs/a.yaml:5: stubs[1].response.image.formats[1]: unknown format 'jxl'; expected one of webp, png, jpeg, avif, heic, gif",
            "Stubs/a.yaml:5: stubs[1].response.image.formats[2]: format 'webp' is listed twice; expected each format once",
            "Stubs/a.yaml:7: stubs[2].response.image.formats: the list is empty; expected a list of webp, png, jpeg, avif, heic, gif",
            "Stubs/a.yaml:9: stubs[3].response.image.resize: missing 'width' and 'height'; expected at least one of them",
            "Stubs/a.yaml:11: stubs[4].response.image.resize.width: found '{w}'; expected a positive integer or '{query.NAME}', like '{query.w}'",
            "Stubs/a.yaml:11: stubs[4].response.image.resize.height: expected a positive integer or '{query.NAME}', found integer 0",
            "Stubs/a.yaml:11: stubs[4].response.image.resize.fit: unknown fit 'squash'; expected one of contain, cover, fill",
            "Stubs/a.yaml:13: stubs[5].response.image.resize: a resize to 10000x10000 is over the limit of 67108864 pixels (64 Mpx); expected a smaller width or height",
            "Stubs/a.yaml:15: stubs[6].response.image.damage: unknown damage 'smashed'; expected one of truncated, bad-checksum, wrong-signature, garbage-tail",
            "Stubs/a.yaml:17: stubs[7].response.image.generate.frameDuration: frameDuration applies only to an animation; expected 'frames' beside it",
            "Stubs/a.yaml:19: stubs[8].response.image.generate.frames: expected an integer from 1 to 1000, found integer 0",
            "Stubs/a.yaml:21: stubs[9].response.image.generate.frameDuration: invalid frame duration 'soon'; expected 0ms or more, like 100ms or 0.5s",
            "Stubs/a.yaml:23: stubs[10].response.image.quality: quality 0 is out of range for JPEG; expected an integer from 1 to 100",
            "Stubs/a.yaml:25: stubs[11].response.image.generate: 5 frames of 4000x4000 are 80000000 pixels in all, over the limit of 67108864 (64 Mpx); expected fewer or smaller frames",
        ])
    }
}
