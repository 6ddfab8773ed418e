import UnderstudyImages
import Foundation
import Understudy
import XCTest

/// SPEC section 15 in stub files: `as:`, `quality:`, `speed:`, `transcode:`, `formats:`,
/// generated animations, `resize:` and `damage:` with AVIF, HEIC and GIF; Content-Type from the
/// bytes; the transcode cache; negotiation's explicit-beats-wildcard step.
final class StubFileAVIFHEICGIFTests: XCTestCase {
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

    private func summary(_ response: PreparedResponse) -> String {
        let size = (try? RGBAImage(decoding: response.body)).map { "\($0.width)x\($0.height)" } ?? "undecodable"
        return "\(response.status) \(response.headers["Content-Type"] ?? "-") \(ImageKind.detect(response.body)?.mimeType ?? "?") \(size)"
    }

    func testEachFormatFromAsTranscodeAndOriginalFiles() async throws {
        let photo = try ImageGenerator.photoLike(width: 80, height: 60, seed: 3)
        try sandbox.write("images/p.png", photo.pngData())
        try sandbox.write("images/p.avif", photo.avifData(quality: 70, speed: 10))
        try sandbox.write("images/p.heic", photo.heicData(quality: 70))
        try sandbox.write("images/p.gif", photo.gifData())
        let (stubs, transcoder) = try registry("""
            stubs:
              - request: { path: /avif }
                response: { image: { file: images/p.png, as: avif } }
              - request: { path: /avif-set }
                response: { image: { file: images/p.png, as: avif, quality: 30, speed: 10 } }
              - request: { path: /heic }
                response: { image: { file: images/p.png, as: heic, quality: 50 } }
              - request: { path: /gif }
                response: { image: { file: images/p.png, as: gif } }
              - request: { path: /transcoded-avif }
                response: { file: images/p.png, transcode: avif }
              - request: { path: /heic-as-png }
                response: { image: { file: images/p.heic, as: png } }
              - request: { path: /avif-as-jpeg }
                response: { file: images/p.avif, transcode: jpeg }
              - request: { path: /gif-as-webp }
                response: { image: { file: images/p.gif, as: webp-lossless } }
              - request: { path: /original.avif }
                response: { file: images/p.avif }
              - request: { path: /original.heic }
                response: { image: { file: images/p.heic } }
              - request: { path: /original.gif }
                response: { file: images/p.gif }
              - request: { path: /resized-avif }
                response: { image: { file: images/p.avif, resize: { width: 40 } } }
            """)
        let expected: [(String, String)] = [
            ("/avif", "200 image/avif image/avif 80x60"),
            ("/avif-set", "200 image/avif image/avif 80x60"),
            ("/heic", "200 image/heic image/heic 80x60"),
            ("/gif", "200 image/gif image/gif 80x60"),
            ("/transcoded-avif", "200 image/avif image/avif 80x60"),
            ("/heic-as-png", "200 image/png image/png 80x60"),
            ("/avif-as-jpeg", "200 image/jpeg image/jpeg 80x60"),
            ("/gif-as-webp", "200 image/webp image/webp 80x60"),
            ("/original.avif", "200 image/avif image/avif 80x60"),
            ("/original.heic", "200 image/heic image/heic 80x60"),
            ("/original.gif", "200 image/gif image/gif 80x60"),
            ("/resized-avif", "200 image/avif image/avif 40x30"),
        ]
        for (path, line) in expected {
            let response = try await stubs.answer("http://x.test\(path)")
            XCTAssertEqual(summary(response), line, path)
        }
        let avif = try await stubs.answer("http://x.test/avif")
        XCTAssertEqual(avif.body, try photo.avifData(quality: 60, speed: 8), "quality 60, speed 8 by default")
        let avifSet = try await stubs.answer("http://x.test/avif-set")
        XCTAssertEqual(avifSet.body, try photo.avifData(quality: 30, speed: 10))
        let heic = try await stubs.answer("http://x.test/heic")
        XCTAssertEqual(heic.body, try photo.heicData(quality: 50))
        let transcoded = try await stubs.answer("http://x.test/transcoded-avif")
        XCTAssertEqual(transcoded.body, avif.body)
        let webp = try await stubs.answer("http://x.test/gif-as-webp")
        XCTAssertEqual(try RGBAImage(decoding: webp.body), try RGBAImage(decoding: photo.gifData()), "lossless from the GIF's pixels")
        // The second request of each transcode is a cache hit: no codec work.
        let before = transcoder.statistics.codecCalls
        for path in ["/avif", "/heic", "/gif", "/heic-as-png", "/resized-avif"] {
            _ = try await stubs.answer("http://x.test\(path)")
        }
        XCTAssertEqual(transcoder.statistics.codecCalls, before)
    }

    /// A format named in Swift without options is the stub files' format of that name, with
    /// their default quality: `as: .webp` and `as: webp` give the same bytes.
    func testEachFormatSpelledInSwiftAsStubFilesSpellItGivesTheSameBytes() async throws {
        let names = ["webp", "jpeg", "jpeg-progressive", "avif", "heic"]
        let formats: [ServedImageFormat] = [.webp, .jpeg, .jpegProgressive, .avif, .heic]
        let (stubs, _) = try registry("stubs:\n" + names.map { name in
            "  - request: { path: /\(name) }\n    response: { image: { generate: { width: 24, height: 16, pattern: photo }, as: \(name) } }\n"
        }.joined())
        let swift = StubRegistry()
        for (name, format) in zip(names, formats) {
            swift.stub(.path("/\(name)"), response: .image(.generated(width: 24, height: 16, pattern: .photo), as: format))
        }
        for name in names {
            let fromFile = try await stubs.answer("http://x.test/\(name)")
            let fromSwift = try await swift.answer("http://x.test/\(name)")
            XCTAssertEqual(fromSwift.headers["Content-Type"], fromFile.headers["Content-Type"], name)
            XCTAssertFalse(fromSwift.body.isEmpty, name)
            if ["avif", "heic"].contains(name) {
                // Their encoders run threads: the pixels, not the bytes, are the same every time.
                XCTAssertEqual(try RGBAImage(decoding: fromSwift.body), try RGBAImage(decoding: fromFile.body), name)
            } else {
                XCTAssertEqual(fromSwift.body, fromFile.body, "\(name): the same encoder settings")
            }
        }
        XCTAssertEqual(ImageFormat.webp, .webp(quality: 80))
        XCTAssertEqual(ImageFormat.avif, .avif(quality: 60, speed: 8))
        XCTAssertEqual(ServedImageFormat.webp, .encoded(.webp(quality: 80)))
        XCTAssertEqual(ServedImageFormat.jpegProgressive, .encoded(.jpegProgressive(quality: 85)))
        XCTAssertEqual(ServedImageFormat.heic(quality: 50), .encoded(.heic(quality: 50)))
    }

    func testGeneratedAnimationsAreAnimatedAVIFAndGIFAndHEICIsTheFirstFrame() async throws {
        let (stubs, _) = try registry("""
            stubs:
              - request: { path: /a.avif }
                response: { image: { generate: { width: 48, height: 32, pattern: checkerboard, frames: 4, frameDuration: 80ms }, as: avif, speed: 10 } }
              - request: { path: /a.gif }
                response: { image: { generate: { width: 48, height: 32, pattern: checkerboard, frames: 4, frameDuration: 80ms }, as: gif } }
              - request: { path: /a.heic }
                response: { image: { generate: { width: 48, height: 32, pattern: checkerboard, frames: 4, frameDuration: 80ms }, as: heic } }
            """)
        let frames = try ImageGenerator.frames(width: 48, height: 32, pattern: .checkerboard, count: 4)
        let gif = try await stubs.answer("http://x.test/a.gif")
        XCTAssertEqual(gif.headers["Content-Type"], "image/gif")
        XCTAssertEqual(try RGBAImage.frames(decoding: gif.body), frames)
        let avif = try await stubs.answer("http://x.test/a.avif")
        XCTAssertEqual(avif.headers["Content-Type"], "image/avif")
        XCTAssertEqual(try RGBAImage.frames(decoding: avif.body).count, 4)
        let heic = try await stubs.answer("http://x.test/a.heic")
        XCTAssertEqual(summary(heic), "200 image/heic image/heic 48x32")
    }

    func testDamageKeepsTheIntendedContentTypeAndBreaksOurDecoder() async throws {
        let (stubs, _) = try registry("""
            stubs:
              - request: { path: /avif }
                response: { image: { generate: { width: 32, height: 32, pattern: photo }, as: avif, damage: bad-checksum } }
              - request: { path: /heic }
                response: { image: { generate: { width: 32, height: 32, pattern: photo }, as: heic, damage: wrong-signature } }
              - request: { path: /gif }
                response: { image: { generate: { width: 32, height: 32, pattern: photo }, as: gif, damage: truncated } }
            """)
        for (path, type) in [("/avif", "image/avif"), ("/heic", "image/heic"), ("/gif", "image/gif")] {
            let response = try await stubs.answer("http://x.test\(path)")
            XCTAssertEqual(response.status, 200)
            XCTAssertEqual(response.headers["Content-Type"], type)
            XCTAssertThrowsError(try RGBAImage(decoding: response.body), path)
        }
    }

    /// SPEC 15's cases, with `formats: [heic, avif, webp, jpeg, png]`.
    func testNegotiationPrefersAFormatNamedExplicitlyOverOneAWildcardAdmits() async throws {
        let (stubs, _) = try registry("""
            stubs:
              - request: { path: /every }
                response: { image: { generate: { width: 16, height: 16, pattern: gradient }, as: negotiate, formats: [heic, avif, webp, jpeg, png] } }
              - request: { path: /default }
                response: { image: { generate: { width: 16, height: 16, pattern: gradient }, as: negotiate } }
            """)
        let cases: [(String, String?, String)] = [
            ("/every", "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8", "image/avif"),  // Chrome
            ("/every", "image/avif,image/webp,*/*", "image/avif"),  // Firefox
            ("/every", "image/webp,image/avif,image/jxl,image/heic,image/heic-sequence,video/*;q=0.8,image/png,image/svg+xml,image/*;q=0.8,*/*;q=0.5", "image/heic"),  // Safari
            ("/every", "image/*", "image/heic"),
            ("/every", "image/webp,*/*;q=0.8", "image/webp"),
            ("/every", "image/png", "image/png"),
            ("/every", nil, "image/heic"),
            ("/every", "*/*", "image/heic"),
            ("/default", "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8", "image/webp"),
            ("/default", "image/avif,image/webp,*/*", "image/webp"),
            ("/default", "image/webp,image/avif,image/jxl,image/heic,image/heic-sequence,video/*;q=0.8,image/png,image/svg+xml,image/*;q=0.8,*/*;q=0.5", "image/webp"),
            ("/default", nil, "image/webp"),
        ]
        for (path, accept, expected) in cases {
            let response = try await stubs.answer("http://x.test\(path)", headers: accept.map { ["Accept": $0] } ?? [:])
            XCTAssertEqual(response.headers["Content-Type"], expected, "\(path) \(accept ?? "(none)")")
            XCTAssertEqual(ImageKind.detect(response.body)?.mimeType, expected, "\(path) \(accept ?? "(none)"): the bytes")
            XCTAssertEqual(response.headers["Vary"], "Accept")
        }
    }

    /// The README's table: each real client's Accept header against a stub offering every
    /// format, in SPEC 15's order and with JPEG first (for clients that send no Accept).
    func testTheREADMETableOfRealClients() async throws {
        let (stubs, _) = try registry("""
            stubs:
              - request: { path: /heic-first }
                response: { image: { generate: { width: 8, height: 8, pattern: gradient }, as: negotiate, formats: [heic, avif, webp, jpeg, png, gif] } }
              - request: { path: /jpeg-first }
                response: { image: { generate: { width: 8, height: 8, pattern: gradient }, as: negotiate, formats: [jpeg, heic, avif, webp, png, gif] } }
            """)
        let clients: [(String, String?, String, String)] = [
            ("Chrome", "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8", "image/avif", "image/avif"),
            ("Firefox", "image/avif,image/webp,*/*", "image/avif", "image/avif"),
            ("Safari", "image/webp,image/avif,image/jxl,image/heic,image/heic-sequence,video/*;q=0.8,image/png,image/svg+xml,image/*;q=0.8,*/*;q=0.5", "image/heic", "image/heic"),
            ("URLSession (none)", nil, "image/heic", "image/jpeg"),
            ("curl", "*/*", "image/heic", "image/jpeg"),
            ("Android (none)", nil, "image/heic", "image/jpeg"),
        ]
        for (client, accept, heicFirst, jpegFirst) in clients {
            let headers: HeaderFields = accept.map { ["Accept": $0] } ?? [:]
            let a = try await stubs.answer("http://x.test/heic-first", headers: headers)
            let b = try await stubs.answer("http://x.test/jpeg-first", headers: headers)
            XCTAssertEqual(a.headers["Content-Type"], heicFirst, client)
            XCTAssertEqual(b.headers["Content-Type"], jpegFirst, client)
        }
    }

    func testMistakesInTheNewKeys() throws {
        try sandbox.write("images/g.png", ImageGenerator.generate(width: 8, height: 8, pattern: .gradient).pngData())
        try sandbox.write("a.yaml", """
            stubs:
              - response: { image: { file: images/g.png, as: webp, speed: 5 } }
              - response: { image: { file: images/g.png, as: avif, speed: 11 } }
              - response: { image: { file: images/g.png, as: gif, quality: 50 } }
              - response: { image: { file: images/g.png, as: heic, quality: 101 } }
            """)
        XCTAssertEqual(sandbox.issues(), [
            "Stubs/a.yaml:2: stubs[0].response.image.speed: speed applies only to as: avif; found as: webp",
            "Stubs/a.yaml:3: stubs[1].response.image.speed: speed 11 is out of range; expected an integer from 0 (slowest) to 10 (fastest)",
            "Stubs/a.yaml:4: stubs[2].response.image.quality: quality applies only to as: webp, jpeg, jpeg-progressive, avif or heic; found as: gif",
            "Stubs/a.yaml:5: stubs[3].response.image.quality: quality 101 is out of range; expected an integer from 0 to 100",
        ])
    }
}
