import Foundation
import UnderstudyImages

/// SPEC 20's catalogue as `GET /hazards/` and `understudy hazards --json` give it:
/// `{"hazards": [{"name", "group", "summary", "correctBehaviour", "path", "expected"}]}`.
///
/// ```swift
/// let json = HazardCatalogue(mount: "/hazards").jsonData
/// ```
public struct HazardCatalogue: Sendable, Encodable {
    /// One hazard's entry.
    public struct Entry: Sendable, Encodable, Equatable {
        /// The kebab-case name.
        public let name: String
        /// `pixels`, `memory`, `headers` or `cache`.
        public let group: String
        /// What the hazard is, in a line.
        public let summary: String
        /// What a correct client does.
        public let correctBehaviour: String
        /// Where it is served.
        public let path: String
        /// Where its expected image is served, or `nil` when the outcome is not pixels.
        public let expected: String?

        /// Encodes `expected` as `null` when there is none, rather than leaving the key out.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(group, forKey: .group)
            try container.encode(summary, forKey: .summary)
            try container.encode(correctBehaviour, forKey: .correctBehaviour)
            try container.encode(path, forKey: .path)
            try container.encode(expected, forKey: .expected)
        }

        private enum CodingKeys: String, CodingKey {
            case name, group, summary, correctBehaviour, path, expected
        }
    }

    /// Every hazard, in catalogue order.
    public let hazards: [Entry]

    /// The catalogue with paths under `mount`.
    /// - Parameter mount: Where the hazards are served, `/hazards` by default.
    public init(mount: String = "/hazards") {
        let base = mount.hasSuffix("/") ? String(mount.dropLast()) : mount
        hazards = Hazard.allCases.map { hazard in
            Entry(
                name: hazard.name, group: hazard.group.rawValue, summary: hazard.summary, correctBehaviour: hazard.correctBehaviour,
                path: hazard.path(under: base), expected: hazard.hasExpectedImage ? "\(base)/\(hazard.name)/expected.png" : nil
            )
        }
    }

    /// The catalogue as JSON, keys sorted, pretty-printed: the same bytes every time.
    public var jsonData: Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        // Encoding strings, arrays and optionals cannot fail.
        return (try? encoder.encode(self)) ?? Data()
    }
}
