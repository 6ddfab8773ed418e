import Foundation
import Understudy

/// One exchange of a HAR log: the request, the response, and how long it took.
public struct HAREntry: Sendable, Hashable, Codable {
    /// The page it belongs to, if any.
    public var pageref: String?
    /// When the request started (ISO 8601 with fractional seconds).
    public var startedDateTime: String
    /// Total milliseconds: the sum of the non-negative ``timings``.
    public var time: Double
    /// The request.
    public var request: HARRequest
    /// The response (status 0 when none arrived).
    public var response: HARResponse
    /// Cache state, as written (usually empty).
    public var cache: [String: JSONValue]
    /// How the time was spent.
    public var timings: HARTimings
    /// The server's IP address, if known.
    public var serverIPAddress: String?
    /// The connection's id, if known.
    public var connection: String?
    /// A comment.
    public var comment: String?
    /// Understudy's own record: the stub, the fault, the transport (`_understudy`).
    public var understudy: HARUnderstudy?
    /// Members this model does not know (`_custom` fields), kept for the round trip.
    public var extras: [String: JSONValue]

    /// Creates an entry.
    public init(
        pageref: String? = nil, startedDateTime: String, time: Double, request: HARRequest, response: HARResponse,
        cache: [String: JSONValue] = [:], timings: HARTimings, serverIPAddress: String? = nil, connection: String? = nil,
        comment: String? = nil, understudy: HARUnderstudy? = nil, extras: [String: JSONValue] = [:]
    ) {
        self.pageref = pageref
        self.startedDateTime = startedDateTime
        self.time = time
        self.request = request
        self.response = response
        self.cache = cache
        self.timings = timings
        self.serverIPAddress = serverIPAddress
        self.connection = connection
        self.comment = comment
        self.understudy = understudy
        self.extras = extras
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case pageref, startedDateTime, time, request, response, cache, timings, serverIPAddress, connection, comment
        case understudy = "_understudy"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        pageref = try container.decodeIfPresent(String.self, forKey: .pageref)
        startedDateTime = try container.string(.startedDateTime, default: "")
        time = try container.lenientDouble(.time, default: 0)
        request = try container.decode(HARRequest.self, forKey: .request)
        response = try container.decode(HARResponse.self, forKey: .response)
        cache = try container.decodeIfPresent([String: JSONValue].self, forKey: .cache) ?? [:]
        timings = try container.decodeIfPresent(HARTimings.self, forKey: .timings) ?? HARTimings(send: 0, wait: time, receive: 0)
        serverIPAddress = try container.decodeIfPresent(String.self, forKey: .serverIPAddress)
        connection = try container.decodeIfPresent(String.self, forKey: .connection)
        comment = try container.decodeIfPresent(String.self, forKey: .comment)
        understudy = try container.decodeIfPresent(HARUnderstudy.self, forKey: .understudy)
        extras = try decoder.extras(known: Set(CodingKeys.allCases.map(\.rawValue)))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(pageref, forKey: .pageref)
        try container.encode(startedDateTime, forKey: .startedDateTime)
        try container.encode(time, forKey: .time)
        try container.encode(request, forKey: .request)
        try container.encode(response, forKey: .response)
        try container.encode(cache, forKey: .cache)
        try container.encode(timings, forKey: .timings)
        try container.encodeIfPresent(serverIPAddress, forKey: .serverIPAddress)
        try container.encodeIfPresent(connection, forKey: .connection)
        try container.encodeIfPresent(comment, forKey: .comment)
        try container.encodeIfPresent(understudy, forKey: .understudy)
        try encoder.encodeExtras(extras)
    }
}

/// How an entry's time was spent, in milliseconds; -1 where it does not apply.
public struct HARTimings: Sendable, Hashable, Codable {
    /// Queued before connecting.
    public var blocked: Double?
    /// DNS resolution.
    public var dns: Double?
    /// Connecting.
    public var connect: Double?
    /// Sending the request.
    public var send: Double
    /// Waiting for the first byte of the response.
    public var wait: Double
    /// Receiving the response.
    public var receive: Double
    /// TLS negotiation (part of `connect`).
    public var ssl: Double?
    /// A comment.
    public var comment: String?

    /// Creates timings.
    public init(blocked: Double? = nil, dns: Double? = nil, connect: Double? = nil, send: Double, wait: Double, receive: Double,
                ssl: Double? = nil, comment: String? = nil) {
        self.blocked = blocked
        self.dns = dns
        self.connect = connect
        self.send = send
        self.wait = wait
        self.receive = receive
        self.ssl = ssl
        self.comment = comment
    }

    enum CodingKeys: String, CodingKey { case blocked, dns, connect, send, wait, receive, ssl, comment }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        blocked = try container.decodeIfPresent(Double.self, forKey: .blocked)
        dns = try container.decodeIfPresent(Double.self, forKey: .dns)
        connect = try container.decodeIfPresent(Double.self, forKey: .connect)
        send = try container.lenientDouble(.send, default: 0)
        wait = try container.lenientDouble(.wait, default: 0)
        receive = try container.lenientDouble(.receive, default: 0)
        ssl = try container.decodeIfPresent(Double.self, forKey: .ssl)
        comment = try container.decodeIfPresent(String.self, forKey: .comment)
    }
}

/// Understudy's record of an entry (`_understudy`): which stub answered, which fault was
/// injected, which transport carried it.
public struct HARUnderstudy: Sendable, Hashable, Codable {
    /// The answering stub's name; `nil` when none matched.
    public var stub: String?
    /// The fault injected (`connection-reset`, ...), if any.
    public var fault: String?
    /// `inProcess`, `server` or `proxy`.
    public var transport: String?
    /// The network profile the response was delivered on, as `slow-3g (2s, 400kbit/s)`, if any.
    public var network: String?

    /// Creates the record.
    public init(stub: String?, fault: String?, transport: String?, network: String? = nil) {
        self.network = network
        self.stub = stub
        self.fault = fault
        self.transport = transport
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        // Written as null rather than left out, so readers see the entry was unmatched.
        try container.encode(stub, forKey: .stub)
        try container.encode(fault, forKey: .fault)
        try container.encodeIfPresent(transport, forKey: .transport)
        try container.encodeIfPresent(network, forKey: .network)
    }
}
