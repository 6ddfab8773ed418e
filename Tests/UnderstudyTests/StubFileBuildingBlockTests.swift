import Foundation
import Understudy
import UnderstudyImages
import XCTest

/// The hazards' building blocks as stub-file keys (SPEC 20): each written into the bytes a
/// client receives, and each refused, naming file, line and key, where the format cannot
/// carry it.
final class StubFileBuildingBlockTests: XCTestCase {
    private func serve(_ image: String, response extra: String = "") async throws -> PreparedResponse {
        let sandbox = try StubFileSandbox()
        try sandbox.write("a.yaml", "stubs:\n  - request: { path: /x }\n    response:\n      image: \(image)\n\(extra)")
        let registry = StubRegistry()
        try registry.load(from: sandbox.stubs)
        return try await registry.answer("http://localhost/x")
    }

    private func issues(_ image: String, response extra: String = "") throws -> [String] {
        let sandbox = try StubFileSandbox()
        try sandbox.write("a.yaml", "stubs:\n  - response:\n      image: \(image)\n\(extra)")
        return sandbox.issues()
    }

    private let source = "generate: { width: 48, height: 32, pattern: gradient }"

    func testOrientationWritesEXIFInIFD0AndStoresThePixelsTurned() async throws {
        let response = try await serve("{ \(source), as: jpeg, orientation: 6 }")
        XCTAssertEqual(response.headers["Content-Type"], "image/jpeg")
        let bytes = [UInt8](response.body)
        XCTAssertNotNil(bytes.firstRange(of: Array("Exif".utf8) + [0, 0, 0x4D, 0x4D, 0, 0x2A]), "EXIF, big-endian TIFF")
        XCTAssertNotNil(bytes.firstRange(of: [0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6]), "Orientation 6, a SHORT")
        let stored = try RGBAImage(decoding: response.body)
        XCTAssertEqual([stored.width, stored.height], [32, 48], "stored a quarter turn round")
    }

    func testColourWritesAdobeCMYKOrAnICCProfileThatDecodesBackToTheSource() async throws {
        let original = try RGBAImage(decoding: ImageSource.generated(width: 48, height: 32, pattern: .gradient).originalData())
        for (colour, transform) in [("cmyk", UInt8(0)), ("ycck", UInt8(2))] {
            let response = try await serve("{ \(source), as: jpeg, quality: 95, colour: \(colour) }")
            let bytes = [UInt8](response.body)
            let adobe = try XCTUnwrap(bytes.firstRange(of: Array("Adobe".utf8))?.lowerBound, colour)
            XCTAssertEqual(bytes[adobe + 11], transform, "Adobe APP14 transform of \(colour)")
            XCTAssertLessThanOrEqual(try RGBAImage(decoding: response.body).difference(to: original).maximum, 16, colour)
        }
        let p3 = try await serve("{ \(source), as: jpeg, colour: display-p3 }")
        let bytes = [UInt8](p3.body)
        XCTAssertNotNil(bytes.firstRange(of: Array("ICC_PROFILE".utf8)))
        XCTAssertNotNil(bytes.firstRange(of: Array("Display P3".utf16).flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }))
    }

    func testPNGDepthPaletteInterlaceAndMetadataAreInTheHeaderAndChunks() async throws {
        let deep = try await serve("{ \(source), as: png, depth: 16, interlaced: true }")
        XCTAssertEqual([deep.body[24], deep.body[25], deep.body[28]], [16, 6, 1], "16-bit RGBA, Adam7")
        let original = try RGBAImage(decoding: ImageSource.generated(width: 48, height: 32, pattern: .gradient).originalData())
        XCTAssertEqual(try RGBAImage(decoding: deep.body), original)
        let indexed = try await serve("{ \(source), as: png, palette: { colours: 16, transparent: true } }")
        XCTAssertEqual([indexed.body[24], indexed.body[25]], [4, 3], "4-bit indexed")
        XCTAssertNotNil([UInt8](indexed.body).firstRange(of: Array("tRNS".utf8)))
        let heavy = try await serve("{ \(source), as: png, metadata: 256KB }")
        let bytes = [UInt8](heavy.body)
        let text = try XCTUnwrap(bytes.firstRange(of: Array("tEXt".utf8))?.lowerBound)
        let idat = try XCTUnwrap(bytes.firstRange(of: Array("IDAT".utf8))?.lowerBound)
        XCTAssertGreaterThan(idat - text, 256 * 1024)
    }

    func testWebPAndPNGCarryOrientationProfileLoopAndMetadataInTheirOwnChunks() async throws {
        let webp = try await serve("{ \(source), as: webp, orientation: 6, colour: display-p3, metadata: 1KB }")
        XCTAssertEqual(webp.headers["Content-Type"], "image/webp")
        let bytes = [UInt8](webp.body)
        for chunk in ["VP8X", "ICCP", "EXIF", "XMP "] {
            XCTAssertNotNil(bytes.firstRange(of: Array(chunk.utf8)), "WebP chunk \(chunk)")
        }
        XCTAssertNotNil(bytes.firstRange(of: [0x4D, 0x4D, 0, 0x2A]), "EXIF's TIFF header, with no JPEG prefix")
        let stored = try RGBAImage(decoding: webp.body)
        XCTAssertEqual([stored.width, stored.height], [32, 48], "stored a quarter turn round")
        let animated = "generate: { width: 16, height: 16, pattern: checkerboard, frames: 3, frameDuration: 50ms }"
        let looped = try await serve("{ \(animated), as: webp-lossless, loop: 2 }")
        let anim = try XCTUnwrap([UInt8](looped.body).firstRange(of: Array("ANIM".utf8))?.upperBound)
        XCTAssertEqual(Array(looped.body[anim + 8..<anim + 10]), [2, 0], "ANIM's loop count")
        let png = try await serve("{ \(source), as: png, orientation: 3, colour: adobe-rgb }")
        let chunks = [UInt8](png.body)
        let exif = try XCTUnwrap(chunks.firstRange(of: Array("eXIf".utf8))?.lowerBound)
        let icc = try XCTUnwrap(chunks.firstRange(of: Array("iCCP".utf8))?.lowerBound)
        let idat = try XCTUnwrap(chunks.firstRange(of: Array("IDAT".utf8))?.lowerBound)
        XCTAssertLessThan(max(exif, icc), idat, "eXIf and iCCP ahead of the pixels")
    }

    func testDeclaredSizeAndLoopRewriteTheHeaders() async throws {
        let bomb = try await serve("{ \(source), as: png, declaredSize: { width: 30000, height: 30000 } }")
        XCTAssertLessThan(bomb.body.count, 65_536)
        XCTAssertThrowsError(try RGBAImage(decoding: bomb.body)) { error in
            XCTAssertEqual((error as? ImageError)?.code, .tooLarge)
        }
        let animated = "generate: { width: 16, height: 16, pattern: checkerboard, frames: 3, frameDuration: 10ms }"
        let once = try await serve("{ \(animated), as: gif, loop: none }")
        XCTAssertNil([UInt8](once.body).firstRange(of: Array("NETSCAPE2.0".utf8)))
        let thrice = try await serve("{ \(animated), as: gif, loop: 3 }")
        let bytes = [UInt8](thrice.body)
        let netscape = try XCTUnwrap(bytes.firstRange(of: Array("NETSCAPE2.0".utf8))?.upperBound)
        XCTAssertEqual(Array(bytes[netscape..<netscape + 4]), [3, 1, 3, 0], "sub-block of 3: id 1, count 3")
    }

    func testEachKeyIsRefusedWhereTheFormatCannotCarryItNamingFileLineAndKey() throws {
        XCTAssertEqual(try issues("{ \(source), as: gif, orientation: 6 }"), [
            "Stubs/a.yaml:3: stubs[0].response.image.orientation: GIF cannot carry 'orientation'; it is written for JPEG, PNG, WebP only",
        ])
        XCTAssertEqual(try issues("{ \(source), as: gif, colour: display-p3 }"), [
            "Stubs/a.yaml:3: stubs[0].response.image.colour: GIF cannot carry 'colour'; it is written for JPEG, PNG, WebP only",
        ])
        XCTAssertEqual(try issues("{ \(source), as: webp, depth: 16 }"), [
            "Stubs/a.yaml:3: stubs[0].response.image.depth: WebP cannot carry 'depth'; it is written for PNG only",
        ])
        XCTAssertEqual(try issues("{ \(source), as: jpeg, depth: 16 }"), [
            "Stubs/a.yaml:3: stubs[0].response.image.depth: JPEG cannot carry 'depth'; it is written for PNG only",
        ])
        XCTAssertEqual(try issues("{ \(source), as: jpeg, interlaced: true }"), [
            "Stubs/a.yaml:3: stubs[0].response.image.interlaced: JPEG cannot carry 'interlaced'; it is written for PNG only (for JPEG, use as: jpeg-progressive)",
        ])
        XCTAssertEqual(try issues("{ \(source), as: png, loop: none }"), [
            "Stubs/a.yaml:3: stubs[0].response.image.loop: PNG cannot carry 'loop'; it is written for GIF, WebP only",
        ])
        XCTAssertEqual(try issues("{ \(source), as: webp, colour: cmyk }"), [
            "Stubs/a.yaml:3: stubs[0].response.image.colour: WebP cannot carry 'colour: cmyk'; it is written for JPEG only (display-p3 and adobe-rgb for JPEG, PNG, WebP)",
        ])
        XCTAssertEqual(try issues("{ \(source), as: png, colour: ycck }"), [
            "Stubs/a.yaml:3: stubs[0].response.image.colour: PNG cannot carry 'colour: ycck'; it is written for JPEG only (display-p3 and adobe-rgb for JPEG, PNG, WebP)",
        ])
        XCTAssertEqual(try issues("{ \(source), as: avif, orientation: 6 }"), [
            "Stubs/a.yaml:3: stubs[0].response.image.orientation: building-block keys (orientation) need as: png, jpeg, gif, webp or webp-lossless; found as: avif",
        ])
        XCTAssertEqual(try issues("{ \(source), as: webp, declaredSize: { width: 20000000, height: 10 } }"), [
            "Stubs/a.yaml:3: stubs[0].response.image.declaredSize: WebP stores each side of its canvas in 24 bits: declaredSize allows at most 16777216 x 16777216 there, and fewer than 4294967296 pixels in all",
        ])
        XCTAssertEqual(try issues("{ \(source), as: webp, declaredSize: { width: 20, height: 20 } }"), [
            "Stubs/a.yaml:3: stubs[0].response.image.declaredSize: cannot write the image with declaredSize: a WebP canvas holds its frames: declaredSize 20 x 20 is smaller than the 48 x 32 image",
        ])
        XCTAssertEqual(try issues("{ \(source), as: gif, declaredSize: { width: 70000, height: 10 } }"), [
            "Stubs/a.yaml:3: stubs[0].response.image.declaredSize: GIF stores each side in 16 bits: declaredSize allows at most 65535 x 65535 there",
        ])
        XCTAssertEqual(try issues("{ \(source), as: jpeg, colour: sepia }"), [
            "Stubs/a.yaml:3: stubs[0].response.image.colour: unknown colour 'sepia'; expected one of cmyk, ycck, display-p3, adobe-rgb",
        ])
        XCTAssertEqual(try issues("{ \(source), as: png, palette: { colours: 16 }, depth: 16 }"), [
            "Stubs/a.yaml:3: stubs[0].response.image.palette: a 16-bit PNG cannot be indexed; give depth: 16 or palette, not both",
        ])
    }

    func testContentTypeAndEncodingKeysChangeWhatTheClientReceives() async throws {
        let png = "{ \(source), as: png }"
        let none = try await serve(png, response: "      contentType: none\n")
        XCTAssertNil(none.headers["Content-Type"])
        let lying = try await serve(png, response: "      contentType: image/jpeg\n")
        XCTAssertEqual(lying.headers["Content-Type"], "image/jpeg")
        XCTAssertEqual(ImageKind.detect(lying.body), .png)
        let gzipped = try await serve(png, response: "      encoding: gzip\n")
        XCTAssertEqual(gzipped.headers["Content-Encoding"], "gzip")
        XCTAssertEqual(Array(gzipped.body.prefix(2)), [0x1F, 0x8B])
        let unlabelled = try await serve(png, response: "      encoding: gzip\n      encodingHeader: false\n")
        XCTAssertNil(unlabelled.headers["Content-Encoding"])
        XCTAssertEqual(Array(unlabelled.body.prefix(2)), [0x1F, 0x8B])
        let deflated = try await serve(png, response: "      encoding: deflate\n")
        XCTAssertEqual(deflated.headers["Content-Encoding"], "deflate")
        XCTAssertEqual(deflated.body.first, 0x78)
        XCTAssertEqual(try issues(png, response: "      encodingHeader: false\n"), [
            "Stubs/a.yaml:4: stubs[0].response.encodingHeader: encodingHeader applies only with encoding: gzip or deflate",
        ])
        XCTAssertEqual(try issues(png, response: "      encoding: br\n"), [
            "Stubs/a.yaml:4: stubs[0].response.encoding: unknown encoding 'br'; expected gzip or deflate",
        ])
    }

    func testFrameDurationZeroIsWrittenAsGivenForGIFAndRefusedForOtherFormats() async throws {
        let animated = "generate: { width: 16, height: 16, pattern: checkerboard, frames: 2, frameDuration: 0ms }"
        let gif = try await serve("{ \(animated), as: gif }")
        let bytes = [UInt8](gif.body)
        // Each graphic control extension: 21 F9 04, flags, then the delay (little-endian).
        var delays: [Int] = []
        var index = 0
        while let range = bytes[index...].firstRange(of: [0x21, 0xF9, 0x04]) {
            delays.append(Int(bytes[range.upperBound + 1]) | Int(bytes[range.upperBound + 2]) << 8)
            index = range.upperBound
        }
        XCTAssertEqual(delays, [0, 0])
        XCTAssertEqual(try issues("{ \(animated), as: webp }"), [
            "Stubs/a.yaml:3: stubs[0].response.image.as: frameDuration 0ms is written for as: gif only; found as: webp",
        ])
    }
}
