/// A throughput limit for response bodies, in bytes per second (KB = 1,000 bytes; KiB = 1,024).
///
/// ```swift
/// .file(bigPNG).throttled(to: .edge)          // 16 KB/s
/// .file(bigPNG).throttled(to: .bytesPerSecond(64_000))
/// ```
public struct Bandwidth: Sendable, Hashable, CustomStringConvertible {
    /// Bytes delivered per second; at least 1.
    public let bytesPerSecond: Int

    /// A limit of `bytesPerSecond` (clamped to at least 1).
    public static func bytesPerSecond(_ value: Int) -> Bandwidth {
        Bandwidth(bytesPerSecond: max(1, value))
    }

    /// GPRS, 7 KB/s.
    public static let gprs = Bandwidth(bytesPerSecond: 7_000)
    /// EDGE, 16 KB/s.
    public static let edge = Bandwidth(bytesPerSecond: 16_000)
    /// 3G, 400 KB/s.
    public static let threeG = Bandwidth(bytesPerSecond: 400_000)
    /// 4G, 2,500 KB/s.
    public static let fourG = Bandwidth(bytesPerSecond: 2_500_000)
    /// Wi-Fi, 5,000 KB/s.
    public static let wifi = Bandwidth(bytesPerSecond: 5_000_000)

    /// The preset names stub files accept.
    public static let presetNames = ["gprs", "edge", "3g", "4g", "wifi"]

    /// Parses a stub-file value: a preset (`3g`), or a rate like `64KB/s`, `1.5MB/s`, `512KiB/s`,
    /// `2000B/s`, `800kbit/s`, `1.5Mbit/s` (1 kbit = 1,000 bits). `nil` when it is neither.
    public init?(parsing text: String) {
        let trimmed = text.trimmingSpaces()
        switch trimmed.lowercased() {
        case "gprs": self = .gprs; return
        case "edge": self = .edge; return
        case "3g": self = .threeG; return
        case "4g": self = .fourG; return
        case "wifi": self = .wifi; return
        default: break
        }
        guard trimmed.hasSuffix("/s") else { return nil }
        let rate = trimmed.dropLast(2)
        let units: [(String, Double)] = [
            ("kbit", 125), ("Kbit", 125), ("Mbit", 125_000),
            ("KiB", 1_024), ("MiB", 1_048_576), ("KB", 1_000), ("MB", 1_000_000), ("B", 1),
        ]
        for (unit, scale) in units where rate.hasSuffix(unit) {
            let number = rate.dropLast(unit.count).trimmingSpaces()
            guard let value = Double(number), value > 0, value.isFinite else { return nil }
            let bytes = value * scale
            guard bytes >= 1, bytes < Double(Int.max) else { return nil }
            self.init(bytesPerSecond: Int(bytes))
            return
        }
        return nil
    }

    init(bytesPerSecond: Int) {
        self.bytesPerSecond = bytesPerSecond
    }

    /// `16KB/s`-style text.
    public var description: String {
        bytesPerSecond % 1_000 == 0 ? "\(bytesPerSecond / 1_000)KB/s" : "\(bytesPerSecond)B/s"
    }
}
