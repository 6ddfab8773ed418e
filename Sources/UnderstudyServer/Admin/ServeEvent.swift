import Foundation
import Understudy

/// One journal entry as `GET /__admin/requests` lists it: WireMock's serve event, with
/// Understudy's whole ``JournalEntry`` under `request.understudy`.
///
/// ```json
/// {"id":"00000000-0000-4000-8000-000000000001",
///  "request":{"absoluteUrl":"http://127.0.0.1:8080/a.png?w=1","browserProxyRequest":false,
///   "headers":{"Accept":"image/png"},"loggedDate":1735787045678,"loggedDateString":"2025-01-02T03:04:05.678Z",
///   "method":"GET","url":"/a.png?w=1",
///   "understudy":{"durationMs":1.2,"httpVersion":"HTTP/1.1","id":1,"outcome":"completed",
///    "request":{"bodySize":0,"headers":{"Accept":"image/png"},"method":"GET","url":"http://127.0.0.1:8080/a.png?w=1"},
///    "response":{"bodySize":68,"headers":{"Content-Type":"image/png"},"status":200},
///    "stub":"cat","time":"2025-01-02T03:04:05.678Z","transport":"server"}},
///  "response":{"headers":{"Content-Type":"image/png"},"status":200},
///  "responseDefinition":{"fromConfiguredStub":true,"status":200},
///  "stubMapping":{"id":"...","name":"cat"},"wasMatched":true}
/// ```
///
/// - WireMock's: `id` (a UUID), `request.url` (path and query as sent), `request.absoluteUrl`,
///   `request.method`, `request.headers`, `request.loggedDate` (milliseconds since 1970),
///   `request.loggedDateString`, `request.body` and `request.bodyAsBase64` (when the request had
///   a body), `request.browserProxyRequest`, `responseDefinition`, `response.status` and
///   `response.headers` (when a response head was sent), `wasMatched`, and `stubMapping` when a
///   stub answered.
/// - Understudy's: `request.understudy`, the entry exactly as ``JournalEntry`` writes it (and
///   `--log json` prints it): `id` the journal's number, `request.url` the full URL, `stub`,
///   `outcome`, `durationMs`, and the rest. It sits inside `request` because WireMock's Java
///   client reads serve events, responses and response definitions strictly, refusing any field
///   it does not know, and its logged request is the one part that takes more.
package struct ServeEvent: Sendable, Hashable, Codable {
    /// Understudy's entry, whose fields the event carries.
    package var entry: JournalEntry
    /// WireMock's `request.url`: the path and query as sent.
    package var url: String
    /// The request body, when it had one.
    package var body: Data?
    /// The WireMock form of the stub that answered, when one did.
    package var stubMapping: JSONValue?
    /// WireMock's `browserProxyRequest`: true only for a request that came over the wire without
    /// a `Host` header (as an HTTP/1.0 proxy client's may); the journal keeps no other trace of
    /// the request line's form.
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
        case request
    }

    package func encode(to encoder: any Encoder) throws {
        try json.encode(to: encoder)
    }

    /// WireMock's serve event, with Understudy's entry as `request.understudy`.
    package var json: JSONValue {
        let understudy = (try? JSONValue(parsing: AdminResponse.encode(entry))) ?? .null
        var request: [String: JSONValue] = [
            "url": .string(url),
            "absoluteUrl": .string(entry.request.url),
            "method": .string(entry.request.method),
            "headers": .object(entry.request.headers.mapValues(JSONValue.string)),
            "loggedDate": .number((entry.time.timeIntervalSince1970 * 1000).rounded(.down)),
            "loggedDateString": .string(JournalEntry.timeStyle.format(entry.time)),
            "browserProxyRequest": .bool(browserProxyRequest),
            "understudy": understudy,
        ]
        if let body, !body.isEmpty {
            request["bodyAsBase64"] = .string(body.base64EncodedString())
            request["body"] = .string(String(decoding: body, as: UTF8.self))
        }
        var members: [String: JSONValue] = [
            "id": .string(Self.id(ofSequence: entry.id)),
            "request": .object(request),
            "wasMatched": .bool(entry.stub != nil),
        ]
        if let response = entry.response {
            members["response"] = ["status": .number(Double(response.status)), "headers": .object(response.headers.mapValues(JSONValue.string))]
        }
        var definition: [String: JSONValue] = ["fromConfiguredStub": .bool(entry.stub != nil)]
        if let status = entry.response?.status ?? (entry.stub == nil ? 404 : nil) { definition["status"] = .number(Double(status)) }
        members["responseDefinition"] = .object(definition)
        if let stubMapping { members["stubMapping"] = stubMapping }
        return .object(members)
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        guard case .object(let members) = try JSONValue(from: decoder), case .object(let request)? = members["request"],
              let understudy = request["understudy"]
        else {
            throw DecodingError.dataCorruptedError(forKey: .request, in: container, debugDescription: "expected a request with Understudy's entry under understudy")
        }
        entry = try JSONDecoder().decode(JournalEntry.self, from: understudy.encoded)
        if case .string(let text)? = request["url"] { url = text } else { url = "" }
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
