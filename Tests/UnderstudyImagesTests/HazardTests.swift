import Foundation
import UnderstudyImages
import XCTest

/// The pixel and memory hazards of SPEC 20 as a client nobody here wrote sees them: Pillow
/// (and pngcheck) open each file, and their verdicts are compared with the catalogue's.
final class HazardTests: XCTestCase {
    private var scratch: Scratch!

    override func setUpWithError() throws { scratch = try Scratch() }
    override func tearDown() { scratch = nil }

    /// Writes the hazard and its expected image (if any); returns the hazard's path.
    private func write(_ hazard: Hazard) throws -> String {
        if let expected = hazard.expected {
            _ = try scratch.write(expected.pngData(), "\(hazard.name).expected.png")
        }
        return try scratch.write(hazard.imageData(), hazard.name)
    }

    /// The largest channel difference between two images Pillow holds, both as RGBA.
    private static let pillowHelpers = """
    import sys, io
    from PIL import Image, ImageOps, ImageChops, ImageCms
    def maxdiff(a, b):
        a = a.convert('RGBA'); b = b.convert('RGBA')
        if a.size != b.size: return 999
        return max(hi for lo, hi in ImageChops.difference(a, b).getextrema())

    """

    func testPillowsExifTransposeOfEachOrientationGivesTheExpectedFigureAndRawPixelsOf2To8DoNot() throws {
        let hazards = (1...8).map { Hazard(named: "orientation-\($0)")! }
        var arguments = [String]()
        for hazard in hazards { arguments += [try write(hazard), scratch.path("\(hazard.name).expected.png")] }
        let output = try Tools.pillow(Self.pillowHelpers + """
        args = sys.argv[1:]
        for i in range(0, len(args), 2):
            im = Image.open(args[i]); expected = Image.open(args[i + 1])
            assert im.format == 'JPEG', im.format
            tag = im.getexif().get(0x0112)
            print(tag, maxdiff(ImageOps.exif_transpose(im), expected), maxdiff(im, expected))
        """, arguments)
        let lines = output.stdout.split(separator: "\n").map { $0.split(separator: " ").map { Int($0)! } }
        XCTAssertEqual(lines.count, 8)
        for (index, line) in lines.enumerated() {
            let orientation = index + 1
            XCTAssertEqual(line[0], orientation, "EXIF Orientation in IFD0 of orientation-\(orientation)")
            XCTAssertLessThanOrEqual(line[1], 12, "exif_transpose(orientation-\(orientation)) differs from the expected image by \(line[1]) levels")
            if orientation > 1 {
                XCTAssertGreaterThan(line[2], 100, "the raw pixels of orientation-\(orientation) should not look upright")
            }
        }
    }

    func testOrientationInIFD1IsOnlyInTheThumbnailsDirectoryAndTheStoredPixelsAreUpright() throws {
        let path = try write(.orientationInIFD1)
        let output = try Tools.pillow(Self.pillowHelpers + """
        from PIL import ExifTags
        im = Image.open(sys.argv[1]); exif = im.getexif()
        print(exif.get(0x0112), exif.get_ifd(ExifTags.IFD.IFD1).get(0x0112), maxdiff(ImageOps.exif_transpose(im), Image.open(sys.argv[2])))
        """, [path, scratch.path("orientation-in-ifd1.expected.png")])
        let fields = output.stdout.split(separator: " ").map { String($0).trimmingCharacters(in: .whitespacesAndNewlines) }
        XCTAssertEqual(fields[0], "None", "IFD0 must carry no Orientation")
        XCTAssertEqual(fields[1], "6", "IFD1 carries Orientation 6")
        XCTAssertLessThanOrEqual(Int(fields[2])!, 12)
    }

    func testCMYKAndYCCKOpenAsAdobeCMYKAndConvertToTheExpectedColours() throws {
        var arguments = [String]()
        for hazard in [Hazard.cmyk, .ycck] { arguments += [try write(hazard), scratch.path("\(hazard.name).expected.png")] }
        let output = try Tools.pillow(Self.pillowHelpers + """
        args = sys.argv[1:]
        for i in range(0, len(args), 2):
            im = Image.open(args[i])
            print(im.mode, 'adobe' in im.info, im.info.get('adobe_transform'), maxdiff(im.convert('RGB'), Image.open(args[i + 1])))
        """, arguments)
        let lines = output.stdout.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        XCTAssertEqual(lines.count, 2)
        XCTAssertEqual(lines[0][0...2], ["CMYK", "True", "0"], "cmyk: mode, Adobe marker, transform 0")
        XCTAssertEqual(lines[1][0...2], ["CMYK", "True", "2"], "ycck: mode, Adobe marker, transform 2 (YCCK)")
        for line in lines { XCTAssertLessThanOrEqual(Int(line[3])!, 8, "converted colours differ by \(line[3]) levels") }
        // And Understudy's own decoder agrees.
        for hazard in [Hazard.cmyk, .ycck] {
            let decoded = try RGBAImage(decoding: hazard.imageData())
            XCTAssertLessThanOrEqual(decoded.difference(to: hazard.expected!).maximum, 8, hazard.name)
        }
    }

    func testICCProfilesAreFoundAndTheirConversionToSRGBGivesTheExpectedColoursWhileIgnoringThemDoesNot() throws {
        var arguments = [String]()
        for hazard in [Hazard.displayP3, .adobeRGB] { arguments += [try write(hazard), scratch.path("\(hazard.name).expected.png")] }
        let output = try Tools.pillow(Self.pillowHelpers + """
        args = sys.argv[1:]
        for i in range(0, len(args), 2):
            im = Image.open(args[i]); expected = Image.open(args[i + 1])
            icc = im.info.get('icc_profile')
            profile = ImageCms.ImageCmsProfile(io.BytesIO(icc))
            converted = ImageCms.profileToProfile(im, profile, ImageCms.createProfile('sRGB'), outputMode='RGB')
            print(len(icc), ImageCms.getProfileDescription(profile).strip().replace(' ', '_'), maxdiff(converted, expected), maxdiff(im, expected))
        """, arguments)
        let lines = output.stdout.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        XCTAssertEqual(lines.count, 2)
        XCTAssertTrue(lines[0][1].hasPrefix("Display_P3"), lines[0][1])
        XCTAssertTrue(lines[1][1].hasPrefix("Adobe_RGB"), lines[1][1])
        for (line, hazard) in zip(lines, [Hazard.displayP3, .adobeRGB]) {
            XCTAssertGreaterThan(Int(line[0])!, 128, "\(hazard): an ICC profile is embedded")
            XCTAssertLessThanOrEqual(Int(line[2])!, 10, "\(hazard): through the profile, the colours differ by \(line[2]) levels")
            XCTAssertGreaterThan(Int(line[3])!, 30, "\(hazard): ignoring the profile must be visible")
        }
    }

    func testPNGHazardsHaveTheBitDepthColourTypeTransparencyAndInterlaceTheyClaim() throws {
        let hazards: [Hazard] = [.png16Bit, .pngGreyAlpha, .pngIndexedTransparency, .pngInterlaced]
        var arguments = [String]()
        for hazard in hazards { arguments += [try write(hazard), scratch.path("\(hazard.name).expected.png")] }
        let output = try Tools.pillow(Self.pillowHelpers + """
        args = sys.argv[1:]
        for i in range(0, len(args), 2):
            data = open(args[i], 'rb').read()
            depth, colour, interlace = data[24], data[25], data[28]
            im = Image.open(args[i])
            print(depth, colour, interlace, b'tRNS' in data, im.mode, maxdiff(im, Image.open(args[i + 1])))
        """, arguments)
        let lines = output.stdout.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        XCTAssertEqual(lines.count, 4)
        XCTAssertEqual(lines[0][0...4], ["16", "6", "0", "False", "RGBA"], "png-16-bit")
        XCTAssertEqual(lines[1][0...4], ["8", "4", "0", "False", "LA"], "png-grey-alpha")
        XCTAssertEqual(lines[2][0...4], ["4", "3", "0", "True", "P"], "png-indexed-transparency")
        XCTAssertEqual(lines[3][0...4], ["8", "6", "1", "False", "RGBA"], "png-interlaced")
        // Pillow takes the high byte of 16-bit samples; libpng rounds: one level apart at most.
        for (line, hazard) in zip(lines, hazards) { XCTAssertLessThanOrEqual(Int(line[5])!, 1, "\(hazard) differs by \(line[5])") }
        for (hazard, expectation) in zip(hazards, ["64 x 64 image, 64-bit RGB+alpha", "grayscale+alpha", "4-bit palette", "interlaced"]) {
            let check = try Tools.check("pngcheck", ["-v", scratch.path(hazard.name)])
            XCTAssertTrue(check.stdout.contains(expectation), "pngcheck of \(hazard): \(check.stdout)")
            XCTAssertTrue(check.stdout.contains("No errors"), "pngcheck of \(hazard): \(check.stdout)")
            XCTAssertLessThanOrEqual(try RGBAImage(decoding: hazard.imageData()).difference(to: hazard.expected!).maximum, 0, "Understudy's decode of \(hazard)")
        }
    }

    func testBombsRaisePillowsDecompressionBombErrorFromAtMost64KBAndUnderstudyRefusesThemByHeader() throws {
        let bombs: [Hazard] = [.bombPNG, .bombJPEG, .bombGIF, .bombWebP]
        var paths = [String]()
        for bomb in bombs {
            let data = try bomb.imageData()
            XCTAssertLessThanOrEqual(data.count, 65_536, "\(bomb) is \(data.count) bytes")
            paths.append(try scratch.write(data, bomb.name))
            XCTAssertThrowsError(try RGBAImage(decoding: data)) { error in
                XCTAssertEqual((error as? ImageError)?.code, .tooLarge, "\(bomb): \(error)")
            }
        }
        let output = try Tools.pillow("""
        import sys
        from PIL import Image
        for path in sys.argv[1:]:
            try:
                im = Image.open(path)
                print('opened', im.size)
            except Image.DecompressionBombError as error:
                print('bomb', '900000000' in str(error))
        """, paths)
        XCTAssertEqual(output.stdout.split(separator: "\n"), Array(repeating: "bomb True", count: 4), output.stdout)
    }

    func testZeroDelayAndNoLoopAnimationsCarryTheirDelaysAndLoopAsPillowReadsThem() throws {
        let paths = [try write(.animationZeroDelay), try write(.animationNoLoop)]
        let output = try Tools.pillow("""
        import sys
        from PIL import Image
        for path in sys.argv[1:]:
            im = Image.open(path); durations = []
            for n in range(im.n_frames):
                im.seek(n); durations.append(im.info.get('duration'))
            print(im.n_frames, 'loop' in im.info, ','.join(str(d) for d in durations))
        """, paths)
        XCTAssertEqual(output.stdout.split(separator: "\n"), ["4 True 0,10,0,10", "4 False 500,500,500,500"])
    }

    func testEveryHazardIsDeterministicAndCataloguedWithAGroupSummaryAndBehaviour() throws {
        XCTAssertEqual(Hazard.allCases.count, 48)
        XCTAssertEqual(Set(Hazard.allNames).count, Hazard.allCases.count)
        for hazard in Hazard.allCases {
            XCTAssertFalse(hazard.summary.isEmpty, hazard.name)
            XCTAssertFalse(hazard.correctBehaviour.isEmpty, hazard.name)
            XCTAssertEqual(Hazard(named: hazard.name), hazard)
            XCTAssertEqual(hazard.expected != nil, hazard.group == .pixels || hazard.hasExpectedImage, hazard.name)
            XCTAssertEqual(try hazard.freshImageData(), try hazard.freshImageData(), "\(hazard) is not deterministic")
            XCTAssertEqual(try hazard.imageData(), try hazard.freshImageData())
        }
        XCTAssertEqual(Hazard.allCases.filter { $0.group == .pixels }.count, 17)
        XCTAssertEqual(Hazard.extensionMismatch.path(under: "/hazards/"), "/hazards/extension-mismatch.jpg")
    }

    func testDifferenceReportsMeanAndMaximumAndSizes() throws {
        let figure = Hazard.orientation1.expected!
        XCTAssertEqual(figure.difference(to: figure).maximum, 0)
        let turned = Hazard.orientation6.expected!   // the same figure: what the client should show
        XCTAssertTrue(figure.difference(to: turned).isWithin(0))
        let stored = try RGBAImage(decoding: Hazard.orientation6.imageData())
        let difference = stored.difference(to: figure)
        XCTAssertFalse(difference.isWithin(255))
        XCTAssertEqual(difference.description, "sizes differ: 64x96, expected 96x64")
        let mirrored = try RGBAImage(decoding: Hazard.orientation2.imageData())
        XCTAssertGreaterThan(mirrored.difference(to: figure).maximum, 100)
        XCTAssertGreaterThan(mirrored.difference(to: figure).mean, 5)
    }

    func testMismatchNamesTheHazardItsCorrectBehaviourAndTheDifference() throws {
        let stored = try RGBAImage(decoding: Hazard.orientation6.imageData())
        let message = try XCTUnwrap(Hazard.orientation6.mismatch(stored, tolerance: 12))
        XCTAssertTrue(message.hasPrefix("orientation-6: Applies the EXIF Orientation 6"), message)
        XCTAssertTrue(message.hasSuffix("sizes differ: 64x96, expected 96x64 (tolerance 12)"), message)
        let mirrored = try RGBAImage(decoding: Hazard.orientation2.imageData())
        XCTAssertNotNil(Hazard.orientation2.mismatch(mirrored, tolerance: 12))
        XCTAssertNil(Hazard.orientation1.mismatch(try RGBAImage(decoding: Hazard.orientation1.imageData()), tolerance: 12))
        XCTAssertTrue(Hazard.bombPNG.mismatch(stored, tolerance: 12)!.contains("not pixels"))
    }

    func testHeavyAnimationsHold300FramesOn1000By1000InAtMost512KB() throws {
        let paths = [try write(.animationHeavyGIF), try write(.animationHeavyWebP)]
        for hazard in [Hazard.animationHeavyGIF, .animationHeavyWebP] {
            let size = try hazard.imageData().count
            XCTAssertLessThanOrEqual(size, 512 * 1024, "\(hazard) is \(size) bytes")
        }
        let output = try Tools.pillow("""
        import sys
        from PIL import Image
        for path in sys.argv[1:]:
            im = Image.open(path)
            print(im.format, im.size[0], im.size[1], im.n_frames)
        """, paths)
        XCTAssertEqual(output.stdout.split(separator: "\n"), ["GIF 1000 1000 300", "WEBP 1000 1000 300"])
    }

    func testPartialFramesCompositeToTheExpectedLastFrameAndPlayOnce() throws {
        let path = try write(.animationPartialFrames)
        let output = try Tools.pillow(Self.pillowHelpers + """
        im = Image.open(sys.argv[1])
        frames = im.n_frames
        im.seek(frames - 1)
        def cleared(image):
            image = image.convert('RGBA')
            image.putdata([p if p[3] else (0, 0, 0, 0) for p in image.getdata()])
            return image
        print(frames, im.info.get('loop'), maxdiff(cleared(im), cleared(Image.open(sys.argv[2]))))
        """, [path, scratch.path("animation-partial-frames.expected.png")])
        XCTAssertEqual(output.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "5 1 0")
    }

    func testPartialGIFFramesUseEachDisposalAndCompositeInPillowToTheExpectedLastFrame() throws {
        let path = try write(.animationPartialFramesGIF)
        let output = try Tools.pillow(Self.pillowHelpers + """
        im = Image.open(sys.argv[1])
        disposals = []
        for n in range(im.n_frames):
            im.seek(n); disposals.append(str(im.disposal_method))
        def cleared(image):
            image = image.convert('RGBA')
            image.putdata([p if p[3] else (0, 0, 0, 0) for p in image.getdata()])
            return image
        print(im.n_frames, 'loop' in im.info, ','.join(disposals), maxdiff(cleared(im), cleared(Image.open(sys.argv[2]))))
        """, [path, scratch.path("animation-partial-frames-gif.expected.png")])
        XCTAssertEqual(output.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "5 False 1,2,3,1,1 0")
        let expected = try XCTUnwrap(Hazard.animationPartialFramesGIF.expected)
        XCTAssertEqual(Array(expected.pixels[((16 + 8) * 96 + 56) * 4..<((16 + 8) * 96 + 56) * 4 + 4]), [0, 0, 0, 0], "the background disposal's hole")
    }

    func testMetadataBeforePixelsPutsA256KBTextChunkAheadOfIDAT() throws {
        let data = try Hazard.metadataBeforePixels.imageData()
        let bytes = [UInt8](data)
        let text = try XCTUnwrap(bytes.firstRange(of: Array("tEXt".utf8))?.lowerBound)
        let idat = try XCTUnwrap(bytes.firstRange(of: Array("IDAT".utf8))?.lowerBound)
        XCTAssertLessThan(text, idat)
        XCTAssertGreaterThan(idat - text, 256 * 1024)
        let path = try write(.metadataBeforePixels)
        let output = try Tools.pillow(Self.pillowHelpers + """
        im = Image.open(sys.argv[1]); im.load()
        print(len(im.info.get('Comment', '')), maxdiff(im, Image.open(sys.argv[2])))
        """, [path, scratch.path("metadata-before-pixels.expected.png")])
        XCTAssertEqual(output.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "262144 0")
        _ = try Tools.check("pngcheck", [path])
    }
}
