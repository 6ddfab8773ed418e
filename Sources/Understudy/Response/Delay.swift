import Foundation

/// How long a response waits before its headers (and before a fault).
public enum Delay: Sendable, Hashable, CustomStringConvertible {
    /// Always this long.
    case fixed(Duration)
    /// Uniformly distributed over the range.
    case uniform(ClosedRange<Duration>)
    /// Log-normally distributed around `median`, with `sigma` the standard deviation of the
    /// log: the shape of real network latency (a long tail).
    case lognormal(median: Duration, sigma: Double)

    /// Draws one delay.
    public func sample<G: RandomNumberGenerator>(using generator: inout G) -> Duration {
        switch self {
        case .fixed(let duration):
            return duration
        case .uniform(let range):
            let low = range.lowerBound.seconds, high = range.upperBound.seconds
            guard high > low else { return range.lowerBound }
            return .seconds(Double.random(in: low...high, using: &generator))
        case .lognormal(let median, let sigma):
            // Box-Muller: a standard normal from two uniforms.
            let u1 = Double.random(in: Double.ulpOfOne..<1, using: &generator)
            let u2 = Double.random(in: 0..<1, using: &generator)
            let normal = (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
            return .seconds(median.seconds * exp(sigma * normal))
        }
    }

    /// Draws one delay from the system generator.
    public func sample() -> Duration {
        var generator = SystemRandomNumberGenerator()
        return sample(using: &generator)
    }

    /// Parses a stub-file duration: `250ms`, `1.5s`, `2m`, `0`. `nil` when malformed or negative.
    public static func parseDuration(_ text: String) -> Duration? {
        let trimmed = text.trimmingSpaces()
        if trimmed == "0" { return .zero }
        let units: [(String, Double)] = [("ms", 0.001), ("us", 0.000_001), ("s", 1), ("m", 60)]
        for (unit, scale) in units where trimmed.hasSuffix(unit) {
            let number = trimmed.dropLast(unit.count)
            guard let value = Double(number), value >= 0, value.isFinite, value * scale < 86_400 else { return nil }
            return .nanoseconds(Int64((value * scale * 1e9).rounded()))
        }
        return nil
    }

    public var description: String {
        switch self {
        case .fixed(let duration): return duration.compactDescription
        case .uniform(let range): return "uniform \(range.lowerBound.compactDescription)...\(range.upperBound.compactDescription)"
        case .lognormal(let median, let sigma): return "lognormal median \(median.compactDescription) sigma \(sigma)"
        }
    }
}

extension Duration {
    /// The duration in seconds as a Double.
    public var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// The duration in milliseconds as a Double.
    public var milliseconds: Double {
        seconds * 1_000
    }

    /// `250ms`, `1.5s`.
    var compactDescription: String {
        let ms = milliseconds
        if ms < 1_000 { return ms.rounded() == ms ? "\(Int(ms))ms" : "\(ms)ms" }
        let s = seconds
        return s.rounded() == s ? "\(Int(s))s" : "\(s)s"
    }
}
