import Foundation
import Understudy

/// One journal entry as `GET /__admin/requests` lists it: WireMock's serve event, with every
/// field of Understudy's ``JournalEntry`` beside WireMock's under names that do not collide.
///
/// ```json
/// {"durationMs":1.2,"httpVersion":"HTTP/1.1","id":"00000000-0000-4000-8000-000000000001","outcome":"completed",
///  "request":{"absoluteUrl":"http://127.0.0.1:8080/a.png?w=1","bodySize":0,"browserProxyRequest":false,
///   "headers":{"Accept":"image/png"},"loggedDate":1735787045678,"loggedDateString":"2025-01-02T03:04:05.678Z",
///   "method":"GET","url":"/a.png?w=1"},
///  "response":{"bodySize":68,"headers":{"Content-Type":"image/png"},"status":200},
///  "responseDefinition":{"fromConfiguredStub":true,"status":200},"sequence":1,"stub":"cat",
///  "stubMapping":{"id":"...","name":"cat"},"time":"2025-01-02T03:04:05.678Z","transport":"server","wasMatched":true}
/// ```
///
/// - WireMock's: `id` (a UUID), `request.url` (path and query as sent), `request.absoluteUrl`,
///   `request.loggedDate` (milliseconds since 1970), `request.loggedDateString`, `request.body`
///   or `request.bodyAsBase64` (when the request had a body), `request.browserProxyRequest`,
///   `responseDefinition`, `response.status` and `response.headers`, `wasMatched`, and
///   `stubMapping` when a stub answered.
/// - Understudy's: `sequence` (the journal's integer id, `id` in ``JournalEntry``), `time`,
///   `request.bodySize`, `stub` (always present, `null` when unmatched), `response.bodySize`,
///   `outcome`, `fault`, `error`, `durationMs`, `transport`, `redirectedFrom`, `httpVersion`,
///   `tunnel`, `network`, exactly as ``JournalEntry`` writes them.
package struct ServeEvent: Sendable, Hashable, Codable {
    /// Understudy's entry, whose fields the event carries.
    package var entry: JournalEntry
    /// WireMock's `request.url`: the path and query as sent.
    package var url: String
    /// The request body, when it had one.
    package var body: Data?
    /// The WireMock form of the stub that answered, when one did.
    package var stubMapping: JSONValue?
    /// WireMock's `browserProxyRequest`: whether the request came to the server as a proxy.
    package var browserProxyRequest: Bool

    /// The event of `interaction`, with `stubMapping` the answering stub's mapping.
    package init(_ interaction: Interaction, stubMapping: JSONValue?) {
        entry = JournalEntry(interaction)
        url = interaction.request.wireMockURL
        body = interaction.request.body
        self.stubMapping = stubMapping
        browserProxyRequest = interaction.request.headers["Host"] == nil && interaction.transport != .inProcess
    }

    /// The WireMock id of journal entry `sequence`: a UUID whose last 12 hex digits are the number.
    package static func id(ofSequence sequence: Int) -> String {
        "00000000-0000-4000-8000-" + String(String(sequence, radix: 16).suffix(12)).leftPadded(to: 12)
    }

    /// The journal sequence number a WireMock id names, if it is one of ours.
    package static func sequence(ofID id: String) -> Int? {
        let lowered = id.lowercased()
        guard lowered.hasPrefix("00000000-0000-4000-8000-"), lowered.count == 36 else { return Int(id) }
        return Int(lowered.suffix(12), radix: 16)
    }

    private enum Keys: String, CodingKey {
        case id, sequence, request, response, responseDefinition, wasMatched, stubMapping
    }

    package func encode(to encoder: any Encoder) throws {
        try json.encode(to: encoder)
    }

    /// Understudy's fields, then WireMock's over the two that collide (`id`, `request.url`).
    package var json: JSONValue {
        guard case .object(var members) = (try? JSONValue(parsing: AdminResponse.encode(entry))) ?? .null,
              case .object(var request)? = members["request"]
        else { return .null }
        members["id"] = .string(Self.id(ofSequence: entry.id))
        members["sequence"] = .number(Double(entry.id))
        request["url"] = .string(url)
        request["absoluteUrl"] = .string(entry.request.url)
        request["loggedDate"] = .number((entry.time.timeIntervalSince1970 * 1000).rounded(.down))
        request["loggedDateString"] = .string(JournalEntry.timeStyle.format(entry.time))
        request["browserProxyRequest"] = .bool(browserProxyRequest)
        if let body, !body.isEmpty {
            request["bodyAsBase64"] = .string(body.base64EncodedString())
            request["body"] = .string(String(decoding: body, as: UTF8.self))
        }
        members["request"] = .object(request)
        var definition: [String: JSONValue] = ["fromConfiguredStub": .bool(entry.stub != nil)]
        if let status = entry.response?.status ?? (entry.stub == nil ? 404 : nil) { definition["status"] = .number(Double(status)) }
        members["responseDefinition"] = .object(definition)
        members["wasMatched"] = .bool(entry.stub != nil)
        if let stubMapping { members["stubMapping"] = stubMapping }
        return .object(members)
    }

    package init(from decoder: any Decoder) throws {
        // Understudy's entry reads `sequence` as its id and `request.absoluteUrl` as its URL.
        let container = try decoder.container(keyedBy: Keys.self)
        let json = try JSONValue(from: decoder)
        guard case .object(var members) = json, case .object(var request)? = members["request"] else {
            throw DecodingError.dataCorruptedError(forKey: .request, in: container, debugDescription: "expected an object with a request")
        }
        members["id"] = members["sequence"]
        url = (request["url"]).flatMap { if case .string(let text) = $0 { return text } else { return nil } } ?? ""
        request["url"] = request["absoluteUrl"]
        members["request"] = .object(request)
        entry = try JSONDecoder().decode(JournalEntry.self, from: JSONValue.object(members).encoded)
        stubMapping = members["stubMapping"]
        if case .string(let base64)? = request["bodyAsBase64"] { body = Data(base64Encoded: base64) }
        if case .bool(let flag)? = request["browserProxyRequest"] { browserProxyRequest = flag } else { browserProxyRequest = false }
    }
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String {
        count >= length ? self : String(repeating: "0", count: length - count) + self
    }
}
