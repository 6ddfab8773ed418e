import Foundation

extension AdminAPI {
    /// The admin endpoints, by path below ``AdminAPI/prefix``.
    enum Endpoint: Sendable, Equatable {
        case health
        case stubs
        case stub(String)
        case requests
        case requestCount
        case nearMisses
        case har
        case reset
        case certificateAuthority

        static let names = ["health", "stubs", "stubs/{name}", "requests", "requests/count", "requests.har", "near-misses", "reset", "ca.pem"]

        init(path: String) throws {
            var rest = path.hasPrefix(AdminAPI.prefix) ? Substring(path.dropFirst(AdminAPI.prefix.count)) : nil
            if rest?.hasSuffix("/") == true { rest = rest?.dropLast() }
            switch rest {
            case "health": self = .health
            case "stubs": self = .stubs
            case "requests": self = .requests
            case "requests/count": self = .requestCount
            case "requests.har": self = .har
            case "near-misses": self = .nearMisses
            case "reset": self = .reset
            case "ca.pem": self = .certificateAuthority
            case let rest? where rest.hasPrefix("stubs/"):
                self = .stub(String(rest.dropFirst("stubs/".count)))
            default:
                throw AdminFailure(
                    404, "no admin endpoint \(path); expected one of \(Self.names.map { AdminAPI.prefix + $0 }.joined(separator: ", "))"
                )
            }
        }

        /// The methods it answers (HEAD goes wherever GET does).
        var methods: [String] {
            switch self {
            case .health, .nearMisses, .har, .certificateAuthority: return ["GET"]
            case .stubs: return ["GET", "POST", "DELETE"]
            case .stub: return ["GET", "DELETE"]
            case .requests: return ["GET", "DELETE"]
            case .requestCount, .reset: return ["POST"]
            }
        }
    }
}
