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
        case gates
        /// `gates/{name}/release` or `gates/{name}/close`.
        case gate(String, GateAction)
        case network
        // WireMock's admin API.
        case mappings
        case mapping(String)
        case mappingsReset, mappingsSave, mappingsImport, mappingsFindByMetadata, mappingsRemoveByMetadata
        /// WireMock 2's own Java client still posts to these: `mappings/new`, `/edit`, `/remove`.
        case mappingsNew, mappingsEdit, mappingsRemove
        case request(String)
        case requestsReset, requestsFind, requestsRemove, requestsUnmatched, requestsUnmatchedNearMisses
        case nearMissesForRequest, nearMissesForPattern
        case scenarios, scenariosReset
        case scenarioState(String)
        case settings

        /// What `POST gates/{name}/…` does.
        enum GateAction: String, Sendable, Equatable {
            case release, close
        }

        static let names = [
            "health", "stubs", "stubs/{name}", "requests", "requests/count", "requests.har", "near-misses", "reset", "ca.pem",
            "gates", "gates/{name}/release", "gates/{name}/close", "network",
            "mappings", "mappings/{id}", "mappings/reset", "mappings/save", "mappings/import", "mappings/find-by-metadata", "mappings/remove-by-metadata", "mappings/new", "mappings/edit", "mappings/remove", "requests/{id}", "requests/reset",
            "requests/find", "requests/remove", "requests/unmatched", "requests/unmatched/near-misses", "near-misses/request",
            "near-misses/request-pattern", "scenarios", "scenarios/reset", "scenarios/{name}/state", "settings",
        ]

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
            case "gates": self = .gates
            case "network": self = .network
            case "mappings": self = .mappings
            case "mappings/reset": self = .mappingsReset
            case "mappings/save": self = .mappingsSave
            case "mappings/import": self = .mappingsImport
            case "mappings/new": self = .mappingsNew
            case "mappings/edit": self = .mappingsEdit
            case "mappings/remove": self = .mappingsRemove
            case "mappings/find-by-metadata": self = .mappingsFindByMetadata
            case "mappings/remove-by-metadata": self = .mappingsRemoveByMetadata
            case "requests/reset": self = .requestsReset
            case "requests/find": self = .requestsFind
            case "requests/remove": self = .requestsRemove
            case "requests/unmatched": self = .requestsUnmatched
            case "requests/unmatched/near-misses": self = .requestsUnmatchedNearMisses
            case "near-misses/request": self = .nearMissesForRequest
            case "near-misses/request-pattern": self = .nearMissesForPattern
            case "scenarios": self = .scenarios
            case "scenarios/reset": self = .scenariosReset
            case "settings": self = .settings
            case let rest? where rest.hasPrefix("mappings/") && !rest.dropFirst("mappings/".count).contains("/"):
                self = .mapping(String(rest.dropFirst("mappings/".count)))
            case let rest? where rest.hasPrefix("requests/") && !rest.dropFirst("requests/".count).contains("/"):
                self = .request(String(rest.dropFirst("requests/".count)))
            case let rest? where rest.hasPrefix("scenarios/") && rest.hasSuffix("/state") && rest.count > "scenarios//state".count:
                self = .scenarioState(String(rest.dropFirst("scenarios/".count).dropLast("/state".count)))
            case let rest? where rest.hasPrefix("gates/"):
                let tail = rest.dropFirst("gates/".count)
                guard let slash = tail.lastIndex(of: "/"), let action = GateAction(rawValue: String(tail[tail.index(after: slash)...])),
                      slash != tail.startIndex
                else {
                    throw AdminFailure(404, "no admin endpoint \(path); expected \(AdminAPI.prefix)gates/{name}/release or \(AdminAPI.prefix)gates/{name}/close")
                }
                self = .gate(String(tail[..<slash]), action)
            case let rest? where rest.hasPrefix("stubs/"):
                self = .stub(String(rest.dropFirst("stubs/".count)))
            default:
                throw AdminFailure(
                    404, "no admin endpoint \(path); expected one of \(Self.names.map { AdminAPI.prefix + $0 }.joined(separator: ", "))"
                )
            }
        }

        /// Whether only WireMock's admin API has this endpoint: its errors are then written as
        /// WireMock writes them, for WireMock's Java client; the endpoints Understudy has too
        /// write Understudy's `{"error", "field"}`, which its own clients read.
        var isWireMocks: Bool {
            switch self {
            case .health, .stubs, .stub, .requests, .requestCount, .nearMisses, .har, .reset, .certificateAuthority, .gates, .gate,
                 .network:
                return false
            default:
                return true
            }
        }

        /// The methods it answers (HEAD goes wherever GET does).
        var methods: [String] {
            switch self {
            case .health, .nearMisses, .har, .certificateAuthority, .gates: return ["GET"]
            case .gate: return ["POST"]
            case .stubs: return ["GET", "POST", "DELETE"]
            case .stub: return ["GET", "DELETE"]
            case .requests: return ["GET", "DELETE"]
            case .requestCount, .reset: return ["POST"]
            case .network: return ["GET", "PUT", "DELETE"]
            case .mappings: return ["GET", "POST", "DELETE"]
            case .mapping: return ["GET", "PUT", "DELETE"]
            case .mappingsReset, .mappingsSave, .mappingsImport, .mappingsFindByMetadata, .mappingsRemoveByMetadata, .mappingsNew,
                 .mappingsEdit, .mappingsRemove, .requestsReset, .requestsFind, .requestsRemove, .nearMissesForRequest,
                 .nearMissesForPattern, .scenariosReset:
                return ["POST"]
            case .request: return ["GET", "DELETE"]
            case .requestsUnmatched, .requestsUnmatchedNearMisses, .scenarios: return ["GET"]
            case .scenarioState: return ["PUT"]
            case .settings: return ["GET", "POST", "PUT"]
            }
        }
    }
}
