import Foundation
import Understudy

/// A server's journal, read from its admin API into a local ``Journal``, so that every reading
/// API and assertion works on it unchanged.
enum RemoteJournal {
    /// The journal of `requests` (`GET /__admin/requests`), each unmatched request with its
    /// near misses from `nearMisses` (`GET /__admin/near-misses`) where the server gave them.
    static func snapshot(requests: Data, nearMisses: Data?) throws -> Journal {
        guard let root = try? JSONSerialization.jsonObject(with: requests) as? [String: Any],
              let entries = root["requests"] as? [[String: Any]]
        else {
            throw StubServerClientError("the server's journal is not the JSON expected: \(String(decoding: requests.prefix(200), as: UTF8.self))")
        }
        let misses = nearMissesByEntry(nearMisses)
        // WireMock's shape, newest first: Understudy's own entry is `request.understudy`.
        let understudy = entries.map { ($0["request"] as? [String: Any])?["understudy"] as? [String: Any] ?? $0 }
            .sorted { ($0["id"] as? Int ?? 0) < ($1["id"] as? Int ?? 0) }
        let journal = Journal()
        for entry in understudy {
            guard let (request, startTime) = self.request(entry) else { continue }
            let id = (entry["sequence"] as? Int) ?? (entry["id"] as? Int)
            journal.record(
                request, transport: transport(entry), startTime: startTime,
                result: result(entry, nearMisses: id.flatMap { misses[$0] } ?? [])
            )
        }
        return journal
    }

    private static func request(_ entry: [String: Any]) -> (StubRequest, Date)? {
        guard let request = entry["request"] as? [String: Any], let method = request["method"] as? String else { return nil }
        // WireMock's shape gives the URL as path and query with `absoluteUrl` beside it.
        guard let text = (request["absoluteUrl"] as? String) ?? (request["url"] as? String), let url = URL(string: text) else { return nil }
        let headers = HeaderFields(((request["headers"] as? [String: Any]) ?? [:]).compactMapValues { $0 as? String })
        let time = (entry["time"] as? String).flatMap(Self.date) ?? Date()
        return (StubRequest(method: method, url: url, headers: headers), time)
    }

    private static func transport(_ entry: [String: Any]) -> Interaction.Transport {
        (entry["transport"] as? String).flatMap(Interaction.Transport.init(rawValue:)) ?? .server
    }

    private static func result(_ entry: [String: Any], nearMisses: [NearMiss]) -> InteractionResult {
        let response = entry["response"] as? [String: Any]
        let headers = HeaderFields(((response?["headers"] as? [String: Any]) ?? [:]).compactMapValues { $0 as? String })
        let stub = (entry["stub"] as? String) ?? (entry["stubName"] as? String)
        let outcome: Interaction.Outcome
        switch entry["outcome"] as? String {
        case "in-flight": outcome = .inFlight
        case "fault": outcome = (entry["fault"] as? String).flatMap(Fault.init(fileName:)).map(Interaction.Outcome.fault) ?? .failed("fault")
        case "truncated": outcome = .truncated(bytes: (response?["bodySize"] as? Int) ?? 0)
        case "cancelled": outcome = .cancelled
        case "unmatched": outcome = .unmatched
        case "failed": outcome = .failed((entry["error"] as? String) ?? "failed")
        default: outcome = stub == nil && response?["status"] as? Int == 404 ? .unmatched : .completed
        }
        return InteractionResult(
            stubName: stub, status: response?["status"] as? Int, headers: headers,
            bodyBytesSent: (response?["bodySize"] as? Int) ?? 0, outcome: outcome, nearMisses: nearMisses,
            httpVersion: (entry["httpVersion"] as? String).flatMap(Interaction.HTTPVersion.init(rawValue:)),
            connection: connection(entry)
        )
    }

    /// The connection facts the server wrote (`connection`, `exchange`, `tls`), if any.
    private static func connection(_ entry: [String: Any]) -> ConnectionFacts? {
        guard let connection = entry["connection"] as? Int, let exchange = entry["exchange"] as? Int else { return nil }
        let tls = (entry["tls"] as? [String: Any]).flatMap { tls -> ConnectionTLS? in
            guard let version = tls["protocolVersion"] as? String else { return nil }
            return ConnectionTLS(Interaction.TLS(
                serverName: tls["serverName"] as? String, applicationProtocol: tls["applicationProtocol"] as? String,
                protocolVersion: version, cipherSuite: tls["cipherSuite"] as? String
            ))
        }
        return ConnectionFacts(connection: connection, exchange: exchange, tls: tls)
    }

    /// Near misses by journal entry id, from `GET /__admin/near-misses`.
    private static func nearMissesByEntry(_ data: Data?) -> [Int: [NearMiss]] {
        guard let data, let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let unmatched = root["unmatched"] as? [[String: Any]]
        else { return [:] }
        var byEntry: [Int: [NearMiss]] = [:]
        for item in unmatched {
            guard let entry = item["entry"] as? [String: Any], let id = (entry["sequence"] as? Int) ?? (entry["id"] as? Int) else { continue }
            byEntry[id] = ((item["nearMisses"] as? [[String: Any]]) ?? []).compactMap { miss in
                guard let stub = miss["stub"] as? String else { return nil }
                let differences = ((miss["differences"] as? [[String: Any]]) ?? []).map {
                    Mismatch(expected: ($0["expected"] as? String) ?? "", actual: ($0["actual"] as? String) ?? "")
                }
                return NearMiss(
                    stubName: stub, matchedParts: (miss["matchedParts"] as? Int) ?? 0,
                    totalParts: (miss["totalParts"] as? Int) ?? 0, mismatches: differences
                )
            }
        }
        return byEntry
    }

    private static func date(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text) ?? ISO8601DateFormatter().date(from: text)
    }
}
