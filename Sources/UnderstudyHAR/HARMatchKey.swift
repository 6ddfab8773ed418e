import Foundation
import Understudy

/// What makes two recorded requests "the same" when a HAR is replayed: requests with equal
/// keys share one stub, whose responses are the recorded ones in order (the last repeats).
///
/// The default is method + URL + `Accept`: `[.method, .url, .header("Accept")]`.
///
/// ```swift
/// try stubs.load(har: harURL, matching: [.method, .url, .host])
/// ```
public struct HARMatchKey: Sendable, Hashable, ExpressibleByArrayLiteral, CustomStringConvertible {
    /// One part of the key.
    public enum Component: Sendable, Hashable, CustomStringConvertible {
        /// The method.
        case method
        /// The path and the query, exactly (a replayer is reached at its own address, so the
        /// recorded host is not compared unless ``host`` is in the key too).
        case url
        /// The host of the recorded URL (for forward-proxy replay).
        case host
        /// A request header's value. A request recorded without the header matches any value,
        /// behind requests recorded with the value asked for.
        case header(String)
        /// The request body, byte for byte.
        case body

        public var description: String {
            switch self {
            case .method: return "method"
            case .url: return "url"
            case .host: return "host"
            case .header(let name): return "header:\(name)"
            case .body: return "body"
            }
        }

        /// Parses `method`, `url`, `host`, `body` or `header:NAME`.
        public init?(_ text: String) {
            let lowered = text.trimmingCharacters(in: .whitespaces).lowercased()
            switch lowered {
            case "method": self = .method
            case "url": self = .url
            case "host": self = .host
            case "body": self = .body
            default:
                guard lowered.hasPrefix("header:") else { return nil }
                let name = text.trimmingCharacters(in: .whitespaces).dropFirst("header:".count)
                guard !name.isEmpty else { return nil }
                self = .header(String(name))
            }
        }
    }

    /// The parts, in the order given.
    public var components: [Component]

    /// Creates a key of these parts.
    public init(_ components: [Component]) {
        self.components = components
    }

    public init(arrayLiteral elements: Component...) {
        self.init(elements)
    }

    /// Method, URL (path and query) and `Accept`.
    public static let `default`: HARMatchKey = [.method, .url, .header("Accept")]

    /// Parses a comma-separated list: `method,url,header:Accept`.
    /// - Throws: ``HARError`` naming the part not understood.
    public init(parsing text: String) throws {
        var components: [Component] = []
        for part in text.split(separator: ",") {
            guard let component = Component(String(part)) else {
                throw HARError(path: "", message: "unknown match key part '\(part)'; expected method, url, host, body or header:NAME")
            }
            components.append(component)
        }
        self.init(components)
    }

    /// `method,url,header:Accept`.
    public var description: String {
        components.map(\.description).joined(separator: ",")
    }
}
