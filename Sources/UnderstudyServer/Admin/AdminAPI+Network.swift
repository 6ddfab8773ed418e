import Foundation
import Understudy

extension AdminAPI {
    /// `GET`, `PUT` and `DELETE /__admin/network`: the network responses are delivered on from
    /// now on, when their stub names none.
    func network(_ request: AdminRequest, method: String) throws -> AdminResponse {
        try checkQuery(request, allowed: [])
        guard let network else {
            throw AdminFailure(404, "this admin API has no network to change; expected a running server")
        }
        switch method {
        case "PUT":
            network.runtime = try Self.profile(from: request.body)
        case "DELETE":
            network.runtime = nil
        default:
            break
        }
        return .json(200, AdminJSON.NetworkState(network))
    }

    /// The profile a `PUT` body names: `{"profile": "slow-3g"}` or `{"latency": "300ms", "rate": "800kbit/s"}`.
    static func profile(from body: Data) throws -> NetworkProfile {
        let expected = #"{"profile": NAME} or {"latency": "300ms", "rate": "800kbit/s"}"#
        guard !body.isEmpty else {
            throw AdminFailure(400, "the request body is empty; expected \(expected)", field: "body")
        }
        guard let object = try? JSONSerialization.jsonObject(with: body), let fields = object as? [String: Any] else {
            throw AdminFailure(400, "the request body is not a JSON object; expected \(expected)", field: "body")
        }
        if let unknown = fields.keys.sorted().first(where: { !["profile", "latency", "rate"].contains($0) }) {
            throw AdminFailure(400, "unknown field '\(unknown)'; expected \(expected)", field: unknown)
        }
        func text(_ key: String, _ what: String) throws -> String? {
            guard let value = fields[key] else { return nil }
            guard let string = value as? String else {
                throw AdminFailure(400, "'\(key)' must be a string; expected \(what)", field: key)
            }
            return string
        }
        if let name = try text("profile", "a profile name") {
            if let other = ["latency", "rate"].first(where: { fields[$0] != nil }) {
                throw AdminFailure(400, "found both 'profile' and '\(other)'; expected a profile name or a custom latency and rate", field: other)
            }
            guard let profile = NetworkProfile.named(name) else {
                throw AdminFailure(
                    400, "unknown network profile '\(name)'; expected one of \(NetworkProfile.names.joined(separator: ", "))", field: "profile"
                )
            }
            return profile
        }
        guard let latencyText = try text("latency", "a duration like 300ms") else {
            throw AdminFailure(400, "missing 'latency'; expected \(expected)", field: "latency")
        }
        guard let latency = Delay.parseDuration(latencyText) else {
            throw AdminFailure(400, "invalid latency '\(latencyText)'; expected a duration like 300ms or 1.5s", field: "latency")
        }
        guard let rateText = try text("rate", "a rate like 800kbit/s") else {
            throw AdminFailure(400, "missing 'rate'; expected \(expected)", field: "rate")
        }
        guard let rate = Bandwidth(parsing: rateText) else {
            throw AdminFailure(
                400, "invalid rate '\(rateText)'; expected a rate like 800kbit/s, 1.5Mbit/s or 64KB/s, or one of \(Bandwidth.presetNames.joined(separator: ", "))",
                field: "rate"
            )
        }
        return .custom(latency: latency, rate: rate)
    }
}

extension AdminJSON {
    /// One network profile in `GET /__admin/network`.
    package struct NetworkProfileSummary: Sendable, Hashable, Codable {
        /// Its name, or `nil` for a custom profile.
        package var name: String?
        /// The latency before each response's first byte, in milliseconds.
        package var latencyMs: Double
        /// The rate, as `400kbit/s`.
        package var rate: String
        /// The rate in bytes per second.
        package var bytesPerSecond: Int

        package init(_ profile: NetworkProfile) {
            name = profile.name
            latencyMs = profile.latency.milliseconds
            rate = profile.rate.bitsDescription
            bytesPerSecond = profile.rate.bytesPerSecond
        }

        private enum CodingKeys: String, CodingKey {
            case name, latencyMs, rate, bytesPerSecond
        }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)  // `null` for a custom profile, not absent
            try container.encode(latencyMs, forKey: .latencyMs)
            try container.encode(rate, forKey: .rate)
            try container.encode(bytesPerSecond, forKey: .bytesPerSecond)
        }
    }

    /// `GET`, `PUT` and `DELETE /__admin/network`: the profile in force, and where it comes from.
    package struct NetworkState: Sendable, Hashable, Codable {
        /// What responses whose stub names no profile are delivered on now; `null`: full speed.
        package var current: NetworkProfileSummary?
        /// The one set at run time (`PUT`), if any.
        package var runtime: NetworkProfileSummary?
        /// The server's own (`serve --network`), if any.
        package var server: NetworkProfileSummary?
        /// Every name `PUT` accepts.
        package var profiles: [String]

        package init(_ setting: NetworkSetting) {
            current = setting.current.map(NetworkProfileSummary.init)
            runtime = setting.runtime.map(NetworkProfileSummary.init)
            server = setting.base.map(NetworkProfileSummary.init)
            profiles = NetworkProfile.names
        }

        private enum CodingKeys: String, CodingKey {
            case current, runtime, server, profiles
        }

        package func encode(to encoder: any Encoder) throws {
            // `null` rather than absent: a client reads "no profile" from the field itself.
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(current, forKey: .current)
            try container.encode(runtime, forKey: .runtime)
            try container.encode(server, forKey: .server)
            try container.encode(profiles, forKey: .profiles)
        }
    }
}
