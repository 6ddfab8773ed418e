/// An `Accept` header parsed as HTTP defines it: media ranges, wildcards and q-values.
///
/// ```swift
/// let accept = AcceptHeader("image/avif,image/webp,image/*;q=0.8,*/*;q=0.5")
/// accept.quality(of: "image/webp")  // 1.0
/// accept.quality(of: "image/png")   // 0.8
/// ```
public struct AcceptHeader: Sendable, Hashable, CustomStringConvertible {
    /// One media range of the header.
    public struct MediaRange: Sendable, Hashable {
        /// The type, lowercased, or `*`.
        public var type: String
        /// The subtype, lowercased, or `*`.
        public var subtype: String
        /// Parameters other than `q`, names lowercased.
        public var parameters: [String: String]
        /// The weight from 0 to 1; 1 when the range has no `q`.
        public var quality: Double

        /// How specific the range is: `*/*` 0, `type/*` 1, `type/subtype` 2, plus 1 with parameters.
        var specificity: Int {
            (type == "*" ? 0 : subtype == "*" ? 1 : 2) + (parameters.isEmpty ? 0 : 1)
        }

        func covers(type: String, subtype: String, parameters: [String: String]) -> Bool {
            (self.type == "*" || self.type == type)
                && (self.subtype == "*" || self.subtype == subtype)
                && self.parameters.allSatisfy { parameters[$0.key] == $0.value }
        }
    }

    /// The ranges in header order; `nil` when the request had no Accept header at all.
    public let ranges: [MediaRange]?

    /// Parses the value of an Accept header; `nil` means the request sent none.
    ///
    /// Malformed ranges are skipped, as user agents do; a `q` outside 0...1 or unparsable counts as 1.
    public init(_ value: String?) {
        guard let value else {
            ranges = nil
            return
        }
        ranges = value.split(separator: ",").compactMap(AcceptHeader.parseRange)
    }

    private static func parseRange(_ text: Substring) -> MediaRange? {
        var parts = text.split(separator: ";").map { $0.trimmingSpaces() }
        guard let mediaType = parts.first, !mediaType.isEmpty else { return nil }
        parts.removeFirst()
        let typeParts = mediaType.lowercased().split(separator: "/", omittingEmptySubsequences: false)
        guard typeParts.count == 2, !typeParts[0].isEmpty, !typeParts[1].isEmpty else { return nil }
        let type = String(typeParts[0]), subtype = String(typeParts[1])
        if type == "*" && subtype != "*" { return nil }
        var quality = 1.0
        var parameters: [String: String] = [:]
        for parameter in parts {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingSpaces() }
            guard pair.count == 2 else { continue }
            let name = pair[0].lowercased()
            var value = pair[1]
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 {
                value = String(value.dropFirst().dropLast())
            }
            if name == "q" {
                if let q = Double(value), (0...1).contains(q) { quality = q }
            } else {
                parameters[name] = value
            }
        }
        return MediaRange(type: type, subtype: subtype, parameters: parameters, quality: quality)
    }

    /// The weight the header gives `mediaType`: the q of the most specific range that covers it,
    /// 0 when none does, 1 when the request had no Accept header (anything goes).
    public func quality(of mediaType: String) -> Double {
        guard let ranges else { return 1 }
        var parts = mediaType.split(separator: ";").map { $0.trimmingSpaces() }
        guard !parts.isEmpty else { return 0 }
        let typeParts = parts.removeFirst().lowercased().split(separator: "/")
        guard typeParts.count == 2 else { return 0 }
        var parameters: [String: String] = [:]
        for parameter in parts {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingSpaces() }
            if pair.count == 2 { parameters[pair[0].lowercased()] = pair[1] }
        }
        let type = String(typeParts[0]), subtype = String(typeParts[1])
        var best: MediaRange?
        for range in ranges where range.covers(type: type, subtype: subtype, parameters: parameters) {
            if best == nil || range.specificity > best!.specificity {
                best = range
            }
        }
        return best?.quality ?? 0
    }

    /// Whether the header admits `mediaType` with a q above 0.
    public func admits(_ mediaType: String) -> Bool {
        quality(of: mediaType) > 0
    }

    public var description: String {
        guard let ranges else { return "(no Accept header)" }
        return ranges.map { range in
            var text = "\(range.type)/\(range.subtype)"
            for (name, value) in range.parameters.sorted(by: { $0.key < $1.key }) { text += ";\(name)=\(value)" }
            if range.quality != 1 { text += ";q=\(range.quality)" }
            return text
        }.joined(separator: ",")
    }
}

extension StringProtocol {
    func trimmingSpaces() -> String {
        var slice = Substring(self)
        while let first = slice.first, first == " " || first == "\t" { slice.removeFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice.removeLast() }
        return String(slice)
    }
}
