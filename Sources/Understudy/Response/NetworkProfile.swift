/// A network as a client meets it: a latency added before the first byte of every response,
/// and a download rate its bodies are paced at (in slices of at most 16 KB, so the rate holds
/// over any second with no burst beyond one slice).
///
/// The named profiles are Chrome DevTools' (`slow-3g`, `slow-4g`, `fast-4g`) and Firefox's
/// (`gprs` to `wifi`); the article *Networks and delivery in pieces* lists each one's figures and where they come from.
/// Their rates are the one set of rates: ``Bandwidth``'s presets are some of them, and
/// `bandwidth:` in a stub file takes any profile's name for its rate alone.
///
/// ```swift
/// stubs.stub(.path("/photo.jpg"), response: .file(photo).network(.slow3G))
/// server.network = .custom(latency: .milliseconds(300), rate: .kilobitsPerSecond(800))
/// ```
public struct NetworkProfile: Sendable, Hashable, CustomStringConvertible {
    /// The profile's name (`slow-3g`), or `nil` for a custom one.
    public let name: String?
    /// Added before the first byte of each response (before the headers, or the fault).
    public let latency: Duration
    /// The pace of each response body.
    public let rate: Bandwidth

    /// A profile of your own.
    /// - Parameters:
    ///   - latency: added before each response's first byte.
    ///   - rate: the pace of each body.
    public static func custom(latency: Duration, rate: Bandwidth) -> NetworkProfile {
        NetworkProfile(name: nil, latency: latency, rate: rate)
    }

    private init(name: String?, latency: Duration, rate: Bandwidth) {
        self.name = name
        self.latency = max(.zero, latency)
        self.rate = rate
    }

    private init(_ name: String, milliseconds: Double, kilobits: Int) {
        self.init(name: name, latency: .nanoseconds(Int64(milliseconds * 1_000_000)), rate: .kilobitsPerSecond(kilobits))
    }

    /// Chrome DevTools' Slow 3G: 2,000 ms, 400 kbit/s.
    public static let slow3G = NetworkProfile("slow-3g", milliseconds: 2_000, kilobits: 400)
    /// Chrome DevTools' Slow 4G: 562.5 ms, 1,440 kbit/s.
    public static let slow4G = NetworkProfile("slow-4g", milliseconds: 562.5, kilobits: 1_440)
    /// Chrome DevTools' Fast 4G: 165 ms, 8,100 kbit/s.
    public static let fast4G = NetworkProfile("fast-4g", milliseconds: 165, kilobits: 8_100)
    /// Firefox's GPRS: 500 ms, 50 kbit/s.
    public static let gprs = NetworkProfile("gprs", milliseconds: 500, kilobits: 50)
    /// Firefox's Regular 2G: 300 ms, 250 kbit/s.
    public static let regular2G = NetworkProfile("regular-2g", milliseconds: 300, kilobits: 250)
    /// Firefox's Good 2G: 150 ms, 450 kbit/s.
    public static let good2G = NetworkProfile("good-2g", milliseconds: 150, kilobits: 450)
    /// Firefox's Regular 3G: 100 ms, 750 kbit/s.
    public static let regular3G = NetworkProfile("regular-3g", milliseconds: 100, kilobits: 750)
    /// Firefox's Good 3G: 40 ms, 1,500 kbit/s.
    public static let good3G = NetworkProfile("good-3g", milliseconds: 40, kilobits: 1_500)
    /// Firefox's Regular 4G: 20 ms, 4,000 kbit/s.
    public static let regular4G = NetworkProfile("regular-4g", milliseconds: 20, kilobits: 4_000)
    /// Firefox's DSL: 5 ms, 2,000 kbit/s.
    public static let dsl = NetworkProfile("dsl", milliseconds: 5, kilobits: 2_000)
    /// Firefox's Wi-Fi: 2 ms, 30,000 kbit/s.
    public static let wifi = NetworkProfile("wifi", milliseconds: 2, kilobits: 30_000)

    /// The eleven named profiles, in the order the docs list them.
    public static let all: [NetworkProfile] = [
        .slow3G, .slow4G, .fast4G, .gprs, .regular2G, .good2G, .regular3G, .good3G, .regular4G, .dsl, .wifi,
    ]

    /// The names stub files, `serve --network` and the admin API accept.
    public static var names: [String] { all.compactMap(\.name) }

    /// The profile of this name (case-insensitive), or `nil`.
    public static func named(_ name: String) -> NetworkProfile? {
        let wanted = name.trimmingSpaces().lowercased()
        return all.first { $0.name == wanted }
    }

    /// `slow-3g (2s, 400kbit/s)`, or `custom (300ms, 800kbit/s)`.
    public var description: String {
        "\(name ?? "custom") (\(latency.compactDescription), \(rate.bitsDescription))"
    }
}

extension Bandwidth {
    /// A limit of `kilobits` thousand bits per second (1 kbit = 1,000 bits).
    public static func kilobitsPerSecond(_ kilobits: Int) -> Bandwidth {
        .bytesPerSecond(kilobits * 1_000 / 8)
    }

    /// `400kbit/s`-style text, as the network profiles are written.
    public var bitsDescription: String {
        let bits = bytesPerSecond * 8
        if bits % 1_000_000 == 0 && bits >= 10_000_000 { return "\(bits / 1_000_000)Mbit/s" }
        return bits % 1_000 == 0 ? "\(bits / 1_000)kbit/s" : "\(bits)bit/s"
    }
}
