extension Hazard {
    /// The image a cache hazard answers its `number`th request with (1 for the first): the
    /// number in black digits on white, 96 x 64, so a client that shows a stale image shows an
    /// old number. Numbers above 9999 show their last four digits.
    /// - Parameter number: The request's number for its URL, counted from 1.
    public static func numberedImage(_ number: Int) -> RGBAImage {
        let digits = Array(String(max(0, number) % 10000))
        let scale = 6
        let width = digits.count * 4 * scale - scale
        let left = (96 - width) / 2
        let top = (64 - 5 * scale) / 2
        return HazardPictures.draw(width: 96, height: 64, background: [255, 255, 255]) { x, y in
            let (column, row) = ((x - left) / scale, (y - top) / scale)
            guard x >= left, y >= top, row < 5, column < digits.count * 4, column % 4 < 3,
                  let glyph = Self.glyphs[digits[column / 4]] else { return nil }
            let bits = glyph[row]
            return bits & (4 >> (column % 4)) != 0 ? [0, 0, 0] : nil
        }
    }

    /// A 3 x 5 font: each row's three bits, left to right.
    private static let glyphs: [Character: [UInt8]] = [
        "0": [7, 5, 5, 5, 7], "1": [2, 6, 2, 2, 7], "2": [7, 1, 7, 4, 7], "3": [7, 1, 7, 1, 7], "4": [5, 5, 7, 1, 1],
        "5": [7, 4, 7, 1, 7], "6": [7, 4, 7, 5, 7], "7": [7, 1, 1, 1, 1], "8": [7, 5, 7, 5, 7], "9": [7, 5, 7, 1, 7],
    ]
}
