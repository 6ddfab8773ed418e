import Foundation
import Understudy
import XCTest

/// A stub file naming an image whose header claims a huge size (a pixel bomb: a few bytes that
/// would decode to gigabytes) is a load error from the header alone, before any pixel buffer.
final class StubFilePixelBombTests: XCTestCase {
    /// A PNG signature and IHDR claiming `width` x `height`, 8-bit RGBA, and nothing else.
    private func pngHeader(width: UInt32, height: UInt32) -> Data {
        var data = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13])
        data += Data("IHDR".utf8)
        for value in [width, height] {
            data += withUnsafeBytes(of: value.bigEndian) { Data($0) }
        }
        data += Data([8, 6, 0, 0, 0])
        return data
    }

    /// A lossless WebP header (RIFF, VP8L) claiming `width` x `height` (14 bits each).
    private func webpHeader(width: Int, height: Int) -> Data {
        let bits = UInt32(width - 1) | UInt32(height - 1) << 14
        var data = Data("RIFF".utf8) + Data([26, 0, 0, 0]) + Data("WEBPVP8L".utf8) + Data([13, 0, 0, 0, 0x2F])
        data += withUnsafeBytes(of: bits.littleEndian) { Data($0) }
        data += Data(repeating: 0, count: 9)
        return data
    }

    func testImageFilesClaimingTooManyPixelsAreLoadErrors() throws {
        let sandbox = try StubFileSandbox()
        try sandbox.write("bomb.png", pngHeader(width: 100_000, height: 100_000))
        try sandbox.write("bomb.webp", webpHeader(width: 16383, height: 16383))
        try sandbox.write("a.yaml", """
            stubs:
              - response: { image: { file: bomb.png, as: webp } }
              - response: { image: { file: bomb.webp, as: png } }
              - response: { file: bomb.png, transcode: webp }
            """)
        let issues = sandbox.issues()
        XCTAssertEqual(issues, [
            "Stubs/a.yaml:2: stubs[0].response.image.file: cannot use image file 'bomb.png': image of 100000x100000 = 10000000000 pixels is over the limit of 67108864 pixels; raise pixelLimit to allow it",
            "Stubs/a.yaml:3: stubs[1].response.image.file: cannot use image file 'bomb.webp': image of 16383x16383 = 268402689 pixels is over the limit of 67108864 pixels; raise pixelLimit to allow it",
            "Stubs/a.yaml:4: stubs[2].response.transcode: cannot transcode file 'bomb.png': image of 100000x100000 = 10000000000 pixels is over the limit of 67108864 pixels; raise pixelLimit to allow it",
        ])
    }
}
