import Foundation
@testable import UnderstudyImages
import XCTest

/// The hazards' building blocks in every format that can carry them, as clients nobody here
/// wrote read them: Pillow (EXIF orientation, ICC profiles, loop counts, metadata), pngcheck
/// and libwebp's webpinfo and webpmux.
final class HazardBuildingBlockTests: XCTestCase {
    private var scratch: Scratch!

    override func setUpWithError() throws { scratch = try Scratch() }
    override func tearDown() { scratch = nil }

    private static let helpers = """
    import sys, io
    from PIL import Image, ImageOps, ImageChops, ImageCms
    def maxdiff(a, b):
        a = a.convert('RGBA'); b = b.convert('RGBA')
        if a.size != b.size: return 999
        return max(hi for lo, hi in ImageChops.difference(a, b).getextrema())

    """

    private let figure = Hazard.orientation1.expected!

    /// `image` with `variant` applied, written as `name`; returns its path.
    private func write(_ variant: ImageVariant, _ image: RGBAImage, as kind: ImageKind, lossless: Bool = true, name: String) throws -> String {
        try scratch.write(variant.encode([image], frameMilliseconds: 100, as: kind, quality: 90, lossless: lossless), name)
    }

    func testOrientationInPNGsEXIfAndWebPsEXIFChunkIsWhatPillowsExifTransposeUndoes() throws {
        var arguments = [String]()
        for orientation in 1...8 {
            var variant = ImageVariant()
            variant.orientation = orientation
            arguments.append(try write(variant, figure, as: .png, name: "o\(orientation).png"))
            arguments.append(try write(variant, figure, as: .webp, name: "o\(orientation).webp"))
        }
        _ = try scratch.write(figure.pngData(), "figure.png")
        let output = try Tools.pillow(Self.helpers + """
        expected = Image.open(sys.argv[1])
        for path in sys.argv[2:]:
            im = Image.open(path)
            print(im.format, im.getexif().get(0x0112), maxdiff(ImageOps.exif_transpose(im), expected), maxdiff(im, expected))
        """, [scratch.path("figure.png")] + arguments)
        let lines = output.stdout.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        XCTAssertEqual(lines.count, 16)
        for (index, line) in lines.enumerated() {
            let orientation = index / 2 + 1
            XCTAssertEqual(line[0...1], [index % 2 == 0 ? "PNG" : "WEBP", "\(orientation)"], "EXIF Orientation of \(arguments[index])")
            XCTAssertEqual(line[2], "0", "exif_transpose of \(arguments[index]) differs from the figure by \(line[2]) levels")
            if orientation > 1 { XCTAssertGreaterThan(Int(line[3])!, 100, "the raw pixels of \(arguments[index]) should not look upright") }
        }
        let png = try Tools.check("pngcheck", ["-v", scratch.path("o6.png")])
        XCTAssertTrue(png.stdout.contains("chunk eXIf") && png.stdout.contains("No errors"), png.stdout)
        let webp = try Tools.check("webpinfo", [scratch.path("o6.webp")])
        XCTAssertTrue(webp.stdout.contains("Chunk EXIF") && webp.stdout.contains("No error detected"), webp.stdout)
    }

    func testICCProfilesInPNGsICCPAndWebPsICCPChunkConvertToTheExpectedColours() throws {
        let bars = Hazard.displayP3.expected!
        var arguments = [String]()
        for colour in [ImageVariant.Colour.displayP3, .adobeRGB] {
            var variant = ImageVariant()
            variant.colour = colour
            arguments.append(try write(variant, bars, as: .png, name: "\(colour.rawValue).png"))
            arguments.append(try write(variant, bars, as: .webp, name: "\(colour.rawValue).webp"))
        }
        _ = try scratch.write(bars.pngData(), "bars.png")
        let output = try Tools.pillow(Self.helpers + """
        expected = Image.open(sys.argv[1])
        for path in sys.argv[2:]:
            im = Image.open(path)
            profile = ImageCms.ImageCmsProfile(io.BytesIO(im.info['icc_profile']))
            converted = ImageCms.profileToProfile(im.convert('RGB'), profile, ImageCms.createProfile('sRGB'), outputMode='RGB')
            print(im.format, ImageCms.getProfileDescription(profile).strip().replace(' ', '_'), maxdiff(converted, expected), maxdiff(im, expected))
        """, [scratch.path("bars.png")] + arguments)
        let lines = output.stdout.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        XCTAssertEqual(lines.count, 4)
        for (line, path) in zip(lines, arguments) {
            XCTAssertTrue(line[1].hasPrefix(path.contains("display-p3") ? "Display_P3" : "Adobe_RGB"), "\(path): \(line[1])")
            XCTAssertLessThanOrEqual(Int(line[2])!, 10, "\(path): through the profile, the colours differ by \(line[2]) levels")
            XCTAssertGreaterThan(Int(line[3])!, 30, "\(path): ignoring the profile must be visible")
        }
        XCTAssertEqual(lines.map { $0[0] }, ["PNG", "WEBP", "PNG", "WEBP"])
        let png = try Tools.check("pngcheck", ["-v", scratch.path("display-p3.png")])
        XCTAssertTrue(png.stdout.contains("chunk iCCP") && png.stdout.contains("No errors"), png.stdout)
        let webp = try Tools.check("webpinfo", [scratch.path("display-p3.webp")])
        XCTAssertTrue(webp.stdout.contains("Chunk ICCP") && webp.stdout.contains("No error detected"), webp.stdout)
    }

    func testWebPLoopDeclaredSizeAndXMPMetadataAreWhatWebpmuxAndPillowRead() throws {
        let frames = Hazard.countingFrames(3)
        var looped = ImageVariant()
        looped.loop = .some(3)
        let animation = try scratch.write(looped.encode(frames, frameMilliseconds: 70, as: .webp, quality: 80, lossless: true), "loop.webp")
        var once = ImageVariant()
        once.loop = .some(nil)
        let played = try scratch.write(once.encode(frames, frameMilliseconds: 70, as: .webp, quality: 80), "once.webp")
        var canvas = ImageVariant()
        canvas.declaredSize = (width: 200, height: 100)
        let large = try write(canvas, figure, as: .webp, name: "canvas.webp")
        canvas.declaredSize = (width: 30_000, height: 30_000)
        let bomb = try write(canvas, figure, as: .webp, name: "bomb.webp")
        var heavy = ImageVariant()
        heavy.metadata = 256 * 1024
        let metadata = try write(heavy, figure, as: .webp, name: "metadata.webp")
        XCTAssertLessThanOrEqual(try Data(contentsOf: URL(fileURLWithPath: bomb)).count, 64 * 1024)
        let output = try Tools.pillow(Self.helpers + """
        for path in sys.argv[1:4]:
            im = Image.open(path); im.load()
            print(im.n_frames, im.info.get('loop'), im.info.get('duration'), im.size[0], im.size[1])
        try:
            Image.open(sys.argv[4])
            print('opened')
        except Image.DecompressionBombError as error:
            print('bomb', '900000000' in str(error))
        im = Image.open(sys.argv[5])
        print(len(im.info.get('xmp', b'')), im.size[0], im.size[1])
        """, [animation, played, large, bomb, metadata])
        XCTAssertEqual(output.stdout.split(separator: "\n"), ["3 3 70 96 64", "3 1 70 96 64", "1 0 100 200 100", "bomb True", "262144 96 64"])
        let info = try Tools.check("webpmux", ["-info", animation])
        XCTAssertTrue(info.stdout.contains("Canvas size: 96 x 64") && info.stdout.contains("Loop Count : 3"), info.stdout)
        for path in [animation, played, large, bomb, metadata] {
            let check = try Tools.check("webpinfo", [path])
            XCTAssertTrue(check.stdout.contains("No error detected"), "\(path): \(check.stdout)")
        }
        XCTAssertTrue(try Tools.check("webpinfo", [metadata]).stdout.contains("Chunk XMP  at offset"))
    }

    func testGIFMetadataIsACommentExtensionAheadOfTheFirstImage() throws {
        var heavy = ImageVariant()
        heavy.metadata = 100_000
        let data = try heavy.encode(Hazard.countingFrames(2), frameMilliseconds: 100, as: .gif, quality: 90)
        let bytes = [UInt8](data)
        let comment = try XCTUnwrap(bytes.firstRange(of: [0x21, 0xFE])?.lowerBound)
        let firstImage = try XCTUnwrap(bytes.firstRange(of: [0x21, 0xF9, 0x04])?.lowerBound, "the first frame's graphic control extension")
        XCTAssertLessThan(comment, firstImage)
        let path = try scratch.write(data, "comment.gif")
        let output = try Tools.pillow(Self.helpers + """
        im = Image.open(sys.argv[1])
        print(im.n_frames, len(im.info.get('comment', b'')), set(im.info.get('comment', b'')) == {ord('x')})
        """, [path])
        XCTAssertEqual(output.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "2 100000 True")
    }
}
