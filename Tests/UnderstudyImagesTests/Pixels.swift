import Foundation
import UnderstudyImages

/// Pixel comparisons and readers of raw formats the independent tools write.
enum Pixels {
    /// Peak signal-to-noise ratio over the R, G and B channels, in dB (infinity when equal).
    static func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
        precondition(a.count == b.count)
        var squared = 0.0
        var samples = 0.0
        for index in stride(from: 0, to: a.count, by: 4) {
            for channel in 0..<3 {
                let difference = Double(a[index + channel]) - Double(b[index + channel])
                squared += difference * difference
            }
            samples += 3
        }
        let mse = squared / samples
        return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }

    /// Every fourth byte, starting at the alpha of the first pixel.
    static func alpha(_ pixels: [UInt8]) -> [UInt8] {
        stride(from: 3, to: pixels.count, by: 4).map { pixels[$0] }
    }

    /// The first differing pixel, described, or nil when equal.
    static func firstDifference(_ actual: [UInt8], _ expected: [UInt8], width: Int) -> String? {
        guard actual.count == expected.count else { return "\(actual.count) bytes, expected \(expected.count)" }
        for index in stride(from: 0, to: actual.count, by: 4) where actual[index..<index + 4] != expected[index..<index + 4] {
            let pixel = index / 4
            return "pixel (\(pixel % width), \(pixel / width)) is \(Array(actual[index..<index + 4])), expected \(Array(expected[index..<index + 4]))"
        }
        return nil
    }

    /// Reads a PAM (as `dwebp -pam` writes): width, height and RGBA bytes.
    static func readPAM(_ data: Data) -> (width: Int, height: Int, pixels: [UInt8])? {
        let bytes = [UInt8](data)
        let marker = Array("ENDHDR\n".utf8)
        guard let end = (0...(bytes.count - marker.count)).first(where: { bytes[$0..<$0 + marker.count].elementsEqual(marker) }) else { return nil }
        let header = String(decoding: bytes[..<end], as: UTF8.self)
        var fields: [String: String] = [:]
        for line in header.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1)
            if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
        }
        guard let width = fields["WIDTH"].flatMap(Int.init), let height = fields["HEIGHT"].flatMap(Int.init),
              fields["DEPTH"] == "4" else { return nil }
        return (width, height, Array(bytes[(end + marker.count)...]))
    }

    /// Bit depth and colour type from a PNG's IHDR.
    static func pngHeader(_ data: Data) -> (bitDepth: Int, colorType: Int, interlaced: Bool) {
        let bytes = [UInt8](data.prefix(29))
        return (Int(bytes[24]), Int(bytes[25]), bytes[28] == 1)
    }
}
