/// An 8-bit RGBA colour, non-premultiplied.
///
/// ```swift
/// let orange = try RGBAColor(parsing: "#ff8800")
/// let glass = try RGBAColor(parsing: "#ffffff80")
/// let red = try RGBAColor(parsing: "red")
/// ```
public struct RGBAColor: Sendable, Hashable, CustomStringConvertible {
    /// Red, 0...255.
    public var red: UInt8
    /// Green, 0...255.
    public var green: UInt8
    /// Blue, 0...255.
    public var blue: UInt8
    /// Alpha, 0 (transparent) ... 255 (opaque).
    public var alpha: UInt8

    /// Creates a colour from its components.
    /// - Parameters:
    ///   - red: Red, 0...255.
    ///   - green: Green, 0...255.
    ///   - blue: Blue, 0...255.
    ///   - alpha: Alpha, 0...255; opaque by default.
    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    /// `#000000`
    public static let black = RGBAColor(red: 0, green: 0, blue: 0)
    /// `#ffffff`
    public static let white = RGBAColor(red: 255, green: 255, blue: 255)
    /// `#ff0000`
    public static let red = RGBAColor(red: 255, green: 0, blue: 0)
    /// `#008000`, as in CSS (`#00ff00` is CSS `lime`).
    public static let green = RGBAColor(red: 0, green: 128, blue: 0)
    /// `#0000ff`
    public static let blue = RGBAColor(red: 0, green: 0, blue: 255)
    /// `#808080`, also spelled `grey`.
    public static let gray = RGBAColor(red: 128, green: 128, blue: 128)
    /// `#00000000`
    public static let transparent = RGBAColor(red: 0, green: 0, blue: 0, alpha: 0)

    /// The names ``init(parsing:)`` accepts, with their colours (CSS values).
    public static let named: [String: RGBAColor] = [
        "black": .black, "white": .white, "red": .red, "green": .green, "blue": .blue,
        "gray": .gray, "grey": .gray, "transparent": .transparent,
    ]

    /// Parses `#rrggbb`, `#rrggbbaa` (hex digits, either case) or a name from ``named``.
    /// - Parameter text: The colour as written in a stub file or on a command line.
    /// - Throws: ``ImageError`` with code `.invalidArgument`, naming what is accepted.
    public init(parsing text: String) throws {
        let trimmed = text.trimmingWhitespace()
        if let color = Self.named[trimmed.lowercased()] {
            self = color
            return
        }
        let digits = Array(trimmed.utf8.dropFirst())
        if trimmed.hasPrefix("#"), digits.count == 6 || digits.count == 8,
           let values = Self.hexBytes(digits) {
            self.init(red: values[0], green: values[1], blue: values[2], alpha: values.count == 4 ? values[3] : 255)
            return
        }
        throw ImageError(
            .invalidArgument,
            "invalid colour '\(text)': expected #rrggbb, #rrggbbaa or one of \(Self.named.keys.sorted().joined(separator: ", "))"
        )
    }

    /// `#rrggbbaa`, lowercase.
    public var description: String {
        "#" + [red, green, blue, alpha].map { ImageError.hex($0).lowercased() }.joined()
    }

    private static func hexBytes(_ digits: [UInt8]) -> [UInt8]? {
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var bytes: [UInt8] = []
        var index = 0
        while index + 1 < digits.count {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }
}
