/// A throughput limit for response bodies, in bytes per second (KB = 1,000 bytes; KiB = 1,024).
///
/// The presets are the download rates of the network profiles of the same generation (see
/// ``NetworkProfile``), so `bandwidth: gprs` and `network: gprs` pace a body alike.
///
/// ```swift
/// .file(bigPNG).throttled(to: .edge)          // 250 kbit/s, 31,250 B/s
/// .file(bigPNG).throttled(to: NetworkProfile.slow3G.rate)
/// .file(bigPNG).throttled(to: .bytesPerSecond(64_000))
/// ```
public struct Bandwidth: Sendable, Hashable, CustomStringConvertible {
    /// Bytes delivered per second; at least 1.
    public let bytesPerSecond: Int

    /// A limit of `bytesPerSecond` (clamped to at least 1).
    public static func bytesPerSecond(_ value: Int) -> Bandwidth {
        Bandwidth(bytesPerSecond: max(1, value))
    }

    /// GPRS: ``NetworkProfile/gprs``'s rate, 50 kbit/s (6,250 B/s).
    public static let gprs = NetworkProfile.gprs.rate
    /// EDGE: ``NetworkProfile/regular2G``'s rate, 250 kbit/s (31,250 B/s), the regular profile of
    /// its generation (EDGE is a 2G network), as `3g` and `4g` are.
    public static let edge = NetworkProfile.regular2G.rate
    /// 3G: ``NetworkProfile/regular3G``'s rate, 750 kbit/s (93,750 B/s).
    public static let threeG = NetworkProfile.regular3G.rate
    /// 4G: ``NetworkProfile/regular4G``'s rate, 4,000 kbit/s (500,000 B/s).
    public static let fourG = NetworkProfile.regular4G.rate
    /// Wi-Fi: ``NetworkProfile/wifi``'s rate, 30,000 kbit/s (3,750,000 B/s).
    public static let wifi = NetworkProfile.wifi.rate

    /// The names that are a preset but no network profile's, with the preset each stands for.
    private static let generationNames: [(name: String, rate: Bandwidth)] = [("edge", .edge), ("3g", .threeG), ("4g", .fourG)]

    /// The names stub files and the admin API accept for a rate: every network profile's
    /// (`slow-3g`, ..., `gprs`, ..., `wifi`), then `edge`, `3g` and `4g`.
    public static var presetNames: [String] { NetworkProfile.names + generationNames.map(\.name) }

    /// Parses a stub-file value: a preset (`3g`) or a network profile's name (`slow-3g`: that
    /// profile's rate), or a rate like `64KB/s`, `1.5MB/s`, `512KiB/s`, `2000B/s`, `800kbit/s`,
    /// `1.5Mbit/s` (1 kbit = 1,000 bits). `nil` when it is neither.
    public init?(parsing text: String) {
        let trimmed = text.trimmingSpaces()
        if let profile = NetworkProfile.named(trimmed) {
            self = profile.rate
            return
        }
        if let preset = Self.generationNames.first(where: { $0.name == trimmed.lowercased() }) {
            self = preset.rate
            return
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
