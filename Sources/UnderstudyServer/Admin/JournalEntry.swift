import Foundation
import Understudy

/// One journal entry as JSON: what `--log json` prints and `GET /__admin/near-misses` lists;
/// `GET /__admin/requests` writes every field of it inside a ``ServeEvent``, WireMock's shape
/// (where `id` is `sequence` and `request.url` is `request.absoluteUrl`).
///
/// ```json
/// {"durationMs":12.5,"id":1,"outcome":"completed","request":{"bodySize":0,"headers":{"Accept":"image/webp"},
///  "method":"GET","url":"http://img.example.com/a.webp"},"response":{"bodySize":2048,"headers":{...},"status":200},
///  "stub":"cat","time":"2025-01-02T03:04:05.678Z","transport":"server"}
/// ```
///
/// - `stub` is always present: the stub's name, or `null` when none answered.
/// - `response` is present when a response head was sent (the status is known).
/// - `outcome` says how the exchange ended: `completed`, `in-flight`, `fault` (then `fault`
///   names it, e.g. `connection-reset`), `truncated` (`response.bodySize` is what was sent),
///   `cancelled` (the client went away), `unmatched` (no stub; `response` is the 404 when one
///   was sent) or `failed` (then `error` says why: unreadable file, throwing closure, upstream).
/// - `redirectedFrom` is present only for redirect hops.
/// - `httpVersion` is `HTTP/1.1` or `HTTP/2`, what the request came over.
/// - `connection` is the server connection it came on (from 1, in order of acceptance) and
///   `exchange` its place there (from 1); both absent for in-process requests. `tls` is present
///   when the connection had TLS: `serverName` (SNI), `applicationProtocol` (ALPN),
///   `protocolVersion` (`TLSv1.3`) and `cipherSuite` (its IANA name, `TLS_AES_128_GCM_SHA256`).
/// - `scenario` is present when the answering stub takes part in a scenario: its `name` and the
///   `state` the request left it in.
/// - `network` is present when the response was delivered on a network profile: its `name`
///   (`null` for a custom one), `latencyMs`, `rate` (`400kbit/s`) and `bytesPerSecond`.
/// - Header objects have their names sorted; repeated names are joined with `", "`.
package struct JournalEntry: Sendable, Hashable, Codable {
    /// The request as it arrived.
    package struct Request: Sendable, Hashable, Codable {
        /// The method, uppercased.
        package var method: String
        /// The full URL.
        package var url: String
        /// The header lines, repeated names joined with `", "`.
        package var headers: [String: String]
        /// The body's size in bytes (0 without a body).
        package var bodySize: Int

        /// Creates a request summary.
        package init(method: String, url: String, headers: [String: String], bodySize: Int) {
            self.method = method
            self.url = url
            self.headers = headers
            self.bodySize = bodySize
        }
    }

    /// The response head that was sent, and how many body bytes followed it.
    package struct Response: Sendable, Hashable, Codable {
        /// The status code.
        package var status: Int
        /// The header lines, repeated names joined with `", "`.
        package var headers: [String: String]
        /// Body bytes actually sent.
        package var bodySize: Int

        /// Creates a response summary.
        package init(status: Int, headers: [String: String], bodySize: Int) {
            self.status = status
            self.headers = headers
            self.bodySize = bodySize
        }
    }

    /// Sequential within the journal, from 1.
    package var id: Int
    /// When the request arrived (JSON: ISO 8601, UTC, milliseconds).
    package var time: Date
    /// The request.
    package var request: Request
    /// The stub that answered, or `nil` (JSON `null`).
    package var stub: String?
    /// The response head sent, if one was.
    package var response: Response?
    /// `completed`, `in-flight`, `fault`, `truncated`, `cancelled`, `unmatched`, `failed` or `tunnelled`.
    package var outcome: String
    /// The fault's stub-file name (`connection-reset`, ...) when `outcome` is `fault`.
    package var fault: String?
    /// Why rendering failed, when `outcome` is `failed`.
    package var error: String?
    /// From arrival to the last byte or the failure, in milliseconds (microsecond precision).
    package var durationMs: Double
    /// `inProcess`, `server` or `proxy`.
    package var transport: String
    /// The entry whose redirect led here.
    package var redirectedFrom: Int?
    /// `HTTP/1.1` or `HTTP/2`.
    package var httpVersion: Interaction.HTTPVersion
    /// Bytes each way, when `outcome` is `tunnelled`.
    package var tunnel: Tunnel?
    /// The network profile the response was delivered on, if any.
    package var network: AdminJSON.NetworkProfileSummary?
    /// Where the request left the answering stub's scenario: `{"name": "cart", "state": "filled"}`.
    package var scenario: [String: String]?
    /// The server connection it came on, from 1.
    package var connection: Int?
    /// Its place on the connection, from 1.
    package var exchange: Int?
    /// What the connection's TLS handshake settled.
    package var tls: TLS?

    /// A connection's TLS, as ``Interaction/TLS`` has it.
    package struct TLS: Codable, Sendable, Hashable {
        package var serverName: String?
        package var applicationProtocol: String?
        package var protocolVersion: String
        package var cipherSuite: String?

        init(_ tls: Interaction.TLS) {
            serverName = tls.serverName
            applicationProtocol = tls.applicationProtocol
            protocolVersion = tls.protocolVersion
            cipherSuite = tls.cipherSuite
        }
    }
    /// What the stub left to chance that this request drew: `["fault"]`; absent when nothing.
    package var drawn: [String]?

    /// The bytes a `CONNECT` tunnel carried.
    package struct Tunnel: Codable, Sendable, Hashable {
        /// From the client to the real host.
        package var bytesFromClient: Int
        /// From the real host to the client.
        package var bytesToClient: Int
    }

    /// Creates an entry from its parts (tests and tools; transports use ``init(_:)``).
    package init(
        id: Int, time: Date, request: Request, stub: String?, response: Response?, outcome: String,
        fault: String? = nil, error: String? = nil, durationMs: Double, transport: String, redirectedFrom: Int? = nil,
        httpVersion: Interaction.HTTPVersion = .http1_1
    ) {
        self.httpVersion = httpVersion
        self.id = id
        self.time = time
        self.request = request
        self.stub = stub
        self.response = response
        self.outcome = outcome
        self.fault = fault
        self.error = error
        self.durationMs = durationMs
        self.transport = transport
        self.redirectedFrom = redirectedFrom
    }

    /// The entry for a journal interaction.
    package init(_ interaction: Interaction) {
        let request = interaction.request
        self.id = interaction.id
        self.time = interaction.startTime
        self.request = Request(
            method: request.method, url: request.url.absoluteString,
            headers: request.headers.dictionary, bodySize: request.body?.count ?? 0
        )
        self.stub = interaction.stubName
        self.response = interaction.status.map {
            Response(status: $0, headers: interaction.responseHeaders.dictionary, bodySize: interaction.bodyBytesSent)
        }
        switch interaction.outcome {
        case .inFlight: outcome = "in-flight"
        case .completed: outcome = "completed"
        case .fault(let fault):
            outcome = "fault"
            self.fault = fault.description
        case .truncated: outcome = "truncated"
        case .cancelled: outcome = "cancelled"
        case .unmatched: outcome = "unmatched"
        case .failed(let message):
            outcome = "failed"
            error = message
        case .tunnelled(let fromClient, let toClient):
            outcome = "tunnelled"
            tunnel = Tunnel(bytesFromClient: fromClient, bytesToClient: toClient)
        }
        let (seconds, attoseconds) = interaction.duration.components
        let microseconds = seconds * 1_000_000 + attoseconds / 1_000_000_000_000
        self.durationMs = Double(microseconds) / 1000
        self.transport = interaction.transport.rawValue
        self.redirectedFrom = interaction.redirectedFrom
        self.httpVersion = interaction.httpVersion
        self.network = interaction.network.map(AdminJSON.NetworkProfileSummary.init)
        self.scenario = interaction.scenario.map { ["name": $0.name, "state": $0.state] }
        self.connection = interaction.connection
        self.exchange = interaction.exchange
        self.tls = interaction.tls.map(TLS.init)
        self.drawn = interaction.drawn.isEmpty ? nil : interaction.drawn.map(\.rawValue)
    }

    private enum CodingKeys: String, CodingKey {
        case id, time, request, stub, response, outcome, fault, error, durationMs, transport, redirectedFrom, tunnel, httpVersion, network
        case scenario, drawn, connection, exchange, tls
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(Int.self, forKey: .id)
        let text = try container.decode(String.self, forKey: .time)
        guard let time = try? Self.timeStyle.parse(text) else {
            throw DecodingError.dataCorruptedError(
                forKey: .time, in: container, debugDescription: "'\(text)' is not an ISO 8601 time with milliseconds"
            )
        }
        self.time = time
        request = try container.decode(Request.self, forKey: .request)
        stub = try container.decodeIfPresent(String.self, forKey: .stub)
        response = try container.decodeIfPresent(Response.self, forKey: .response)
        outcome = try container.decode(String.self, forKey: .outcome)
        fault = try container.decodeIfPresent(String.self, forKey: .fault)
        error = try container.decodeIfPresent(String.self, forKey: .error)
        durationMs = try container.decode(Double.self, forKey: .durationMs)
        transport = try container.decode(String.self, forKey: .transport)
        redirectedFrom = try container.decodeIfPresent(Int.self, forKey: .redirectedFrom)
        tunnel = try container.decodeIfPresent(Tunnel.self, forKey: .tunnel)
        httpVersion = try container.decodeIfPresent(Interaction.HTTPVersion.self, forKey: .httpVersion) ?? .http1_1
        network = try container.decodeIfPresent(AdminJSON.NetworkProfileSummary.self, forKey: .network)
        scenario = try container.decodeIfPresent([String: String].self, forKey: .scenario)
        connection = try container.decodeIfPresent(Int.self, forKey: .connection)
        exchange = try container.decodeIfPresent(Int.self, forKey: .exchange)
        tls = try container.decodeIfPresent(TLS.self, forKey: .tls)
        drawn = try container.decodeIfPresent([String].self, forKey: .drawn)
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(Self.timeStyle.format(time), forKey: .time)
        try container.encode(request, forKey: .request)
        // `stub` is always present so that clients can tell "unmatched" from "not reported".
        try container.encode(stub, forKey: .stub)
        try container.encodeIfPresent(response, forKey: .response)
        try container.encode(outcome, forKey: .outcome)
        try container.encodeIfPresent(fault, forKey: .fault)
        try container.encodeIfPresent(error, forKey: .error)
        try container.encode(durationMs, forKey: .durationMs)
        try container.encode(transport, forKey: .transport)
        try container.encodeIfPresent(redirectedFrom, forKey: .redirectedFrom)
        try container.encodeIfPresent(tunnel, forKey: .tunnel)
        try container.encode(httpVersion, forKey: .httpVersion)
        try container.encodeIfPresent(network, forKey: .network)
        try container.encodeIfPresent(scenario, forKey: .scenario)
        try container.encodeIfPresent(connection, forKey: .connection)
        try container.encodeIfPresent(exchange, forKey: .exchange)
        try container.encodeIfPresent(tls, forKey: .tls)
        try container.encodeIfPresent(drawn, forKey: .drawn)
    }

    /// `2025-01-02T03:04:05.678Z`.
    static let timeStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
}
