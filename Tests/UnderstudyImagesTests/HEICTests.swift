import Foundation
@testable import UnderstudyImages
import XCTest

/// HEIC through libheif: what heif-convert and heif-info read from what we write, and what we
/// read from what heif-enc writes.
final class HEICTests: XCTestCase {
    private var scratch: Scratch!

    override func setUpWithError() throws { scratch = try Scratch() }
    override func tearDown() { scratch = nil }

    private func heifConvert(_ path: String) throws -> RGBAImage {
        let out = scratch.path(UUID().uuidString + ".png")
        try Tools.check("heif-convert", [path, out])
        return try RGBAImage(decoding: Data(contentsOf: URL(fileURLWithPath: out)))
    }

    func testEncodedHEICIsReadByHeifConvertAtItsSizeAboveAPSNRFloorWithAlphaKept() throws {
        let image = try ImageGenerator.photoLike(width: 200, height: 150, seed: 3, opaque: false)
        let heic = try image.heicData(quality: 60)
        XCTAssertEqual(ImageKind.detect(heic), .heic)
        let path = try scratch.write(heic, "photo.heic")
        let info = try Tools.check("heif-info", [path]).stdout
        XCTAssertTrue(info.contains("200x150"), info)
        XCTAssertTrue(info.contains("alpha channel: yes"), info)
        let decoded = try heifConvert(path)
        XCTAssertEqual([decoded.width, decoded.height], [200, 150])
        XCTAssertGreaterThanOrEqual(Pixels.psnr(decoded.pixels, image.pixels), 30, "quality 60 on the photo pattern")
        let alphaError = zip(Pixels.alpha(decoded.pixels), Pixels.alpha(image.pixels)).map { abs(Int($0) - Int($1)) }.max() ?? 255
        XCTAssertLessThanOrEqual(alphaError, 16, "the alpha ramp is kept")
        XCTAssertGreaterThanOrEqual(Pixels.psnr(try RGBAImage(decoding: heic).pixels, decoded.pixels), 45)
    }

    func testQualityIsAppliedAndOpaqueImagesHaveNoAlpha() throws {
        let image = try ImageGenerator.photoLike(width: 160, height: 120, seed: 4)
        let low = try image.heicData(quality: 20)
        let high = try image.heicData(quality: 90)
        XCTAssertLessThan(low.count, high.count)
        let path = try scratch.write(high, "high.heic")
        XCTAssertTrue(try Tools.check("heif-info", [path]).stdout.contains("alpha channel: no"))
        XCTAssertGreaterThan(Pixels.psnr(try RGBAImage(decoding: high).pixels, image.pixels), Pixels.psnr(try RGBAImage(decoding: low).pixels, image.pixels))
    }

    func testHeifEncsFileDecodesToTheSource() throws {
        let image = try ImageGenerator.photoLike(width: 96, height: 64, seed: 6)
        let png = try scratch.write(image.pngData(), "source.png")
        let out = scratch.path("enc.heic")
        try Tools.check("heif-enc", ["-q", "90", "-o", out, png])
        let data = try Data(contentsOf: URL(fileURLWithPath: out))
        XCTAssertEqual(ImageKind.detect(data), .heic)
        let decoded = try RGBAImage(decoding: data)
        XCTAssertEqual([decoded.width, decoded.height], [96, 64])
        XCTAssertGreaterThanOrEqual(Pixels.psnr(decoded.pixels, image.pixels), 35)
    }

    func testISOBMFFBrandsAreSniffed() {
        func ftyp(_ major: String, _ compatible: [String]) -> Data {
            let brands = ([major, "\0\0\0\0"] + compatible).joined()
            let size = 8 + brands.utf8.count
            return Data([0, 0, 0, UInt8(size)] + Array("ftyp".utf8) + Array(brands.utf8) + [0, 0, 0, 8] + Array("meta".utf8))
        }
        XCTAssertEqual(ImageKind.detect(ftyp("avif", ["mif1", "miaf"])), .avif)
        XCTAssertEqual(ImageKind.detect(ftyp("avis", [])), .avif)
        XCTAssertEqual(ImageKind.detect(ftyp("mif1", ["miaf", "avif"])), .avif)
        XCTAssertEqual(ImageKind.detect(ftyp("heic", ["mif1"])), .heic)
        XCTAssertEqual(ImageKind.detect(ftyp("mif1", ["heic"])), .heic)
        XCTAssertEqual(ImageKind.detect(ftyp("msf1", ["hevc"])), .heic)
        XCTAssertNil(ImageKind.detect(ftyp("mif1", ["miaf"])), "a HEIF of neither codec")
        XCTAssertNil(ImageKind.detect(ftyp("isom", ["mp41", "avc1"])), "an MP4 video")
        XCTAssertEqual(ImageKind.avif.mimeType, "image/avif")
        XCTAssertEqual(ImageKind.heic.mimeType, "image/heic")
    }

    func testDamagedAndAbsurdHEICsAreDocumentedErrors() throws {
        let heic = try ImageGenerator.photoLike(width: 64, height: 64).heicData(quality: 50)
        XCTAssertThrowsError(try RGBAImage(decoding: heic.prefix(heic.count / 2))) { error in
            let code = (error as? ImageError)?.code
            XCTAssertTrue(code == .truncated || code == .corrupt, "\(error)")
        }
        XCTAssertThrowsError(try RGBAImage(decoding: heic, pixelLimit: 4000)) { error in
            XCTAssertEqual("\(error)", "image of 64x64 = 4096 pixels is over the limit of 4000 pixels; raise pixelLimit to allow it")
        }
        var bytes = [UInt8](heic)
        let ispe = try XCTUnwrap(AVIFTests.find("ispe", in: bytes))
        bytes[ispe + 9] = 0x01; bytes[ispe + 10] = 0x86; bytes[ispe + 11] = 0xA0
        bytes[ispe + 13] = 0x01; bytes[ispe + 14] = 0x86; bytes[ispe + 15] = 0xA0
        XCTAssertThrowsError(try RGBAImage(decoding: Data(bytes))) { error in
            let code = (error as? ImageError)?.code
            XCTAssertTrue(code == .tooLarge || code == .corrupt, "\(error)")
        }
    }

    /// What `make fuzz` found (FuzzHEIC, two files of 1,295 bytes): grids whose item references
    /// (`iref`) have a reference box that overruns the `iref` in one, and declares 6 bytes in
    /// the other. libheif 1.15 read each leniently into a grid made, in the end, from itself,
    /// and decoded it by starting threads until memory ran out, or for ever (with its decoding
    /// threads off, it overflowed the stack). Both are refused before libheif decodes.
    func testMalformedItemReferencesAreRefusedBeforeLibheifDecodes() throws {
        let file = try Self.fuzzFinding("grid-alpha-cycle")
        XCTAssertEqual(ImageKind.detect(file), .heic)
        XCTAssertThrowsError(try RGBAImage(decoding: file)) { error in
            XCTAssertEqual((error as? ImageError)?.code, .corrupt)
            XCTAssertEqual(
                "\(error)",
                "corrupt HEIC: a reference box of the iref box declares 4294965006 bytes, where 12 to 14 fit (at byte 778); libheif would guess at it, so it is not decoded"
            )
        }
        // The second file differs in one reference box: 6 bytes declared.
        let shortReference = try Self.fuzzFinding("grid-short-reference")
        XCTAssertThrowsError(try RGBAImage(decoding: shortReference)) { error in
            XCTAssertEqual(
                "\(error)",
                "corrupt HEIC: a reference box of the iref box declares 6 bytes, where 12 to 28 fit (at byte 764); libheif would guess at it, so it is not decoded"
            )
        }
    }

    /// A file `make fuzz` found, kept as a FuzzHEIC seed (`Fuzz/Corpus/FuzzHEIC/NAME.heic`).
    private static func fuzzFinding(_ name: String) throws -> Data {
        try Data(contentsOf: Tools.packageRoot.appendingPathComponent("Fuzz/Corpus/FuzzHEIC/\(name).heic"))
    }

    /// Item references written as a HEIC's `meta` box would hold them (no image data: the file
    /// is refused before any is read): `chains` maps each derived item to the items it is made
    /// from, written as `dimg` references of an `iref` of version 0.
    private static func heic(derived chains: [(Int, [Int])], auxiliary: [(Int, [Int])] = []) -> Data {
        func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
            let size = UInt32(8 + payload.count)
            return withUnsafeBytes(of: size.bigEndian, Array.init) + Array(type.utf8) + payload
        }
        func uint16(_ value: Int) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
        func references(_ type: String, _ list: [(Int, [Int])]) -> [UInt8] {
            list.flatMap { from, to in box(type, uint16(from) + uint16(to.count) + to.flatMap(uint16)) }
        }
        let references = references("dimg", chains) + references("auxl", auxiliary)
        let meta = box("meta", [0, 0, 0, 0] + box("iref", [0, 0, 0, 0] + references))
        return Data(box("ftyp", Array("heic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8)) + meta)
    }

    func testAChainOfGridsIsDecodedTwoDeepAndRefusedThreeDeep() throws {
        // Three derived images made from one another: 1 from 2, 2 from 3, 3 from coded 4 and 5.
        XCTAssertThrowsError(try RGBAImage(decoding: Self.heic(derived: [(1, [2]), (2, [3]), (3, [4, 5])]))) { error in
            XCTAssertEqual(
                "\(error)",
                "corrupt HEIC: decoding item 1 goes through 3 derived images (grids, overlays, transforms) made from one another; at most 2 are decoded (a grid of grids)"
            )
        }
        XCTAssertThrowsError(try RGBAImage(decoding: Self.heic(derived: [(7, [8, 9]), (9, [7])]))) { error in
            XCTAssertEqual("\(error)", "corrupt HEIC: decoding item 7 leads back to it (7 -> 9 -> 7, through derived-image and auxiliary-image references)")
        }
        // Grid 4 is made from grid 2, whose alpha image (auxl, from 4 to 2) is grid 4.
        XCTAssertThrowsError(try RGBAImage(decoding: Self.heic(derived: [(2, [1]), (4, [2])], auxiliary: [(4, [2])]))) { error in
            XCTAssertEqual("\(error)", "corrupt HEIC: decoding item 2 leads back to it (2 -> 4 -> 2, through derived-image and auxiliary-image references)")
        }
        // Two deep passes the check and reaches libheif, which finds no image in this file.
        XCTAssertThrowsError(try RGBAImage(decoding: Self.heic(derived: [(1, [2]), (2, [3, 4])]))) { error in
            XCTAssertEqual((error as? ImageError)?.code, .corrupt)
            XCTAssertTrue("\(error)".hasPrefix("corrupt HEIC: libheif: heif_context_read_from_memory"), "\(error)")
        }
    }

    /// What `make fuzz` found (FuzzHEIC, 912 bytes): an 8x6 primary image (its `ispe`) that is
    /// a grid whose descriptor declares a far larger output, which libheif 1.15 allocated (2.7 GB
    /// in one malloc) before finding the tiles wrong. Every size the file declares is held to the
    /// pixel limit before libheif decodes.
    func testAGridsDeclaredOutputIsHeldToThePixelLimitBeforeDecoding() throws {
        let file = try Self.fuzzFinding("grid-huge-output")
        XCTAssertThrowsError(try RGBAImage(decoding: file)) { error in
            XCTAssertEqual(
                "\(error)", "HEIC grid item 2 declares 26742x25392 pixels, over the limit of 67108864 pixels; raise pixelLimit to allow it"
            )
        }
    }

    /// What `make fuzz` found next (1,796 bytes): the file above twice over, with its grid's
    /// output written in the second copy's `idat` only. libheif read the second `meta` box; a
    /// HEIF file has one, so two are refused.
    func testASecondMetaBoxIsRefused() throws {
        let file = try Self.fuzzFinding("two-metas")
        XCTAssertThrowsError(try RGBAImage(decoding: file)) { error in
            XCTAssertEqual(
                "\(error)",
                "corrupt HEIC: the file has 2 meta boxes at its top level, where HEIF has one (at byte 912); libheif would guess at it, so it is not decoded"
            )
        }
    }

    #if os(Linux) && SystemCodecs
    /// What `make fuzz` found after that (912 bytes): the grid of 26742x25392 again, its item
    /// locations (`iloc`) written with 4-byte extent indexes, read by libheif differently from
    /// our reading. libheif's own limit on each side of an image it allocates (16,385 pixels at
    /// the default pixel limit) stops it in libheif, before the allocation.
    func testLibheifsOwnSideLimitStopsAGridOurReadingMisses() throws {
        let file = try Self.fuzzFinding("grid-huge-output-index")
        XCTAssertThrowsError(try RGBAImage(decoding: file)) { error in
            XCTAssertEqual((error as? ImageError)?.code, .tooLarge)
            XCTAssertTrue("\(error)".hasPrefix("HEIC image is over libheif's security limit (libheif: heif_decode_image:"), "\(error)")
            XCTAssertTrue("\(error)".contains("Image size 26742x25392 exceeds the maximum image size 16385x16385"), "\(error)")
        }
        XCTAssertEqual(HEIFCodec.maximumSide(pixelLimit: 64 * 1024 * 1024), 16_385)
        XCTAssertEqual(HEIFCodec.maximumSide(pixelLimit: 600_000_000), 24_495)
        XCTAssertEqual(HEIFCodec.maximumSide(pixelLimit: .max), 32_768)
    }
    #endif
}
