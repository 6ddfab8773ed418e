import Foundation

/// An ``Interaction`` as the journal keeps it: the same facts in much less memory, since a
/// server keeps a great many of them.
///
/// The request is kept as its method, URL text, packed header lines (``PackedHeaders``) and
/// body, and parsed again when the entry is read (matching happened when it arrived). A request
/// that came over the wire in origin form keeps only its target, the authority being its own
/// `Host` header. Rarely set fields (near misses, redirect links, kept bodies) live in one
/// optional box. Each record knows roughly what memory it holds (``bytes``), for the journal's
/// byte bound.
struct JournalRecord: Sendable {
    enum OriginScheme: String, Sendable {
        case http, https

        /// `http` or `https` by comparison, not through `init(rawValue:)`'s string switch.
        init?(_ scheme: String) {
            switch scheme.utf8.count {
            case 4 where scheme == "http": self = .http
            case 5 where scheme == "https": self = .https
            default: return nil
            }
        }
    }

    /// The fields most entries leave empty.
    final class Extras: Sendable {
        let redirectedFrom: Int?
        let nearMisses: [NearMiss]
        let responseBody: Data?
        let network: NetworkProfile?
        let scenario: ScenarioStep?
        let drawn: Set<ChanceTarget>

        init(
            redirectedFrom: Int?, nearMisses: [NearMiss], responseBody: Data?, network: NetworkProfile?, scenario: ScenarioStep? = nil,
            drawn: Set<ChanceTarget> = []
        ) {
            self.scenario = scenario
            self.drawn = drawn
            self.redirectedFrom = redirectedFrom
            self.nearMisses = nearMisses
            self.responseBody = responseBody
            self.network = network
        }

        static func make(
            redirectedFrom: Int?, nearMisses: [NearMiss], responseBody: Data?, network: NetworkProfile? = nil, scenario: ScenarioStep? = nil,
            drawn: Set<ChanceTarget> = []
        ) -> Extras? {
            redirectedFrom == nil && nearMisses.isEmpty && responseBody == nil && network == nil && scenario == nil && drawn.isEmpty
                ? nil
                : Extras(
                    redirectedFrom: redirectedFrom, nearMisses: nearMisses, responseBody: responseBody, network: network, scenario: scenario,
                    drawn: drawn
                )
        }
    }

    private let method: String
    /// The target (`/a.png?w=1`) when ``originScheme`` is set, else the whole URL text.
    private let urlText: String
    private var headers: PackedHeaders
    private let body: Data?
    private let timeoutInterval: Float
    private let startTime: TimeInterval
    private var durationNanoseconds: Int64 = 0
    /// HAR's `send` and `wait` phases in microseconds (`receive` is the rest of the duration).
    private var sendMicroseconds: UInt32 = 0
    private var waitMicroseconds: UInt32 = 0
    /// The shared rendering the response came from, or 0.
    private var renderID: UInt64 = 0
    var stubName: String?
    private var responseHeaders: HeaderFields = [:]
    private var bodyBytesSent = 0
    /// About how much memory this entry holds (``bytes``), kept to count it out when dropped.
    private(set) var bytes: UInt32 = 0
    var outcome: Interaction.Outcome = .inFlight
    /// The status sent, or -1 for none.
    private var status: Int16 = -1
    /// The scheme of an origin-form request whose authority is its `Host` header.
    private let originScheme: OriginScheme?
    var transport: Interaction.Transport
    /// Whether it came over HTTP/2 (else HTTP/1.1).
    var isHTTP2 = false
    /// The server connection's index and the request's on it, 0 for none (in-process).
    private var connection: UInt32 = 0
    private var exchange: UInt32 = 0
    /// The connection's TLS, shared by its entries.
    private var tls: ConnectionTLS?
    private var extras: Extras?

    /// A record's own size in the journal's ring buffer.
    static let size = MemoryLayout<JournalRecord>.stride

    /// The heap a string holds: none for one of up to 15 UTF-8 bytes (kept inline) or a
    /// literal, else its storage's header and bytes.
    static func heapBytes(_ string: String) -> Int {
        let count = string.utf8.count
        return count <= 15 ? 0 : 32 + count
    }

    static func heapBytes(_ data: Data?) -> Int {
        guard let data, data.count > 14 else { return 0 }
        return 32 + data.count
    }

    static func heapBytes(_ headers: HeaderFields) -> Int {
        guard !headers.isEmpty else { return 0 }
        return headers.fields.reduce(32) { $0 + 32 + heapBytes($1.name) + heapBytes($1.value) }
    }

    /// The request as it arrived, parsed again.
    var request: StubRequest {
        let headers = headers.headers
        if let originScheme, let authority = headers["Host"],
           let request = StubRequest(
               method: method, scheme: originScheme.rawValue, authority: authority, target: urlText, headers: headers, body: body,
               timeoutInterval: TimeInterval(timeoutInterval)
           ) {
            return request
        }
        let url = URL(string: urlText) ?? URL(string: "about:blank")!
        return StubRequest(method: method, url: url, headers: headers, body: body, timeoutInterval: TimeInterval(timeoutInterval))
    }

    /// Shares the storage of an identical header set seen recently: clients send the same
    /// headers request after request, and one copy serves them all (and is counted once).
    mutating func shareHeaders(with recent: inout [PackedHeaders]) {
        guard !headers.bytes.isEmpty else { return }
        if let same = recent.first(where: { $0 == headers }) {
            bytes -= UInt32(clamping: headers.heapBytes)
            headers = same
        } else {
            recent.insert(headers, at: 0)
            if recent.count > 8 { recent.removeLast() }
        }
    }


    /// Records how it ended, keeping `body` (the body bytes sent) if given.
    mutating func complete(with result: InteractionResult, body: Data?, at now: Date) {
        if outcome != .inFlight {
            // Completed again: what the first result added is replaced.
            let earlier = ownResponseHeaderBytes + (extras?.responseBody?.count ?? 0)
            bytes = UInt32(clamping: max(Self.size, Int(bytes) - earlier))
        }
        stubName = result.stubName
        status = result.status.map { Int16(clamping: $0) } ?? -1
        responseHeaders = result.headers
        bodyBytesSent = result.bodyBytesSent
        outcome = result.outcome
        if let transport = result.transport { self.transport = transport }
        if let httpVersion = result.httpVersion { isHTTP2 = httpVersion == .http2 }
        if let connection = result.connection { setConnection(connection) }
        durationNanoseconds = Int64(max(0, now.timeIntervalSinceReferenceDate - startTime) * 1e9)
        sendMicroseconds = Self.microseconds(result.timing.send)
        waitMicroseconds = Self.microseconds(result.timing.wait)
        renderID = result.renderID ?? 0
        let body = body.map { Data($0) }
        let hadExtras = extras != nil
        extras = Extras.make(
            redirectedFrom: extras?.redirectedFrom, nearMisses: result.nearMisses, responseBody: body, network: result.network, scenario: result.scenario,
            drawn: result.drawn
        )
        var added = ownResponseHeaderBytes + (body?.count ?? 0)
        if !hadExtras && extras != nil { added += 48 }
        for miss in result.nearMisses {
            added += 64 + Self.heapBytes(miss.stubName) + miss.mismatches.count * 96
        }
        bytes = UInt32(clamping: Int(bytes) + added)
    }

    /// Records the server connection the request came on.
    mutating func setConnection(_ facts: ConnectionFacts) {
        connection = UInt32(clamping: facts.connection)
        exchange = UInt32(clamping: facts.exchange)
        tls = facts.tls
    }

    /// Keeps `body`, the response body bytes sent, in a record completed without them.
    mutating func keepBody(_ body: Data) {
        let hadExtras = extras != nil
        extras = Extras(
            redirectedFrom: extras?.redirectedFrom, nearMisses: extras?.nearMisses ?? [], responseBody: Data(body), network: extras?.network,
            scenario: extras?.scenario, drawn: extras?.drawn ?? []
        )
        bytes = UInt32(clamping: Int(bytes) + body.count + (hadExtras ? 0 : 48))
    }

    /// The response headers' memory when this entry alone holds them: a canned answer's
    /// (``renderID`` set) are its rendering's, shared by every use of it.
    private var ownResponseHeaderBytes: Int {
        renderID == 0 ? Self.heapBytes(responseHeaders) : 0
    }

    /// The entry as the public API shows it.
    func interaction(id: Int) -> Interaction {
        var interaction = Interaction(
            id: id, request: request, transport: transport, redirectedFrom: extras?.redirectedFrom,
            startTime: Date(timeIntervalSinceReferenceDate: startTime)
        )
        interaction.stubName = stubName
        interaction.status = status < 0 ? nil : Int(status)
        interaction.responseHeaders = responseHeaders
        interaction.bodyBytesSent = bodyBytesSent
        interaction.responseBody = extras?.responseBody
        interaction.outcome = outcome
        interaction.duration = .nanoseconds(durationNanoseconds)
        // The parts are timed on the transport's clock and the whole on the wall clock, which
        // can disagree by microseconds: the parts are cut to the whole, so that they add up to it.
        let send = min(Duration.microseconds(sendMicroseconds), interaction.duration)
        let wait = min(Duration.microseconds(waitMicroseconds), interaction.duration - send)
        interaction.timing = Interaction.Timing(send: send, wait: wait, receive: interaction.duration - send - wait)
        interaction.nearMisses = extras?.nearMisses ?? []
        interaction.renderID = renderID == 0 ? nil : renderID
        interaction.httpVersion = isHTTP2 ? .http2 : .http1_1
        if connection > 0 {
            interaction.connection = Int(connection)
            interaction.exchange = Int(exchange)
            interaction.tls = tls?.facts
        }
        interaction.network = extras?.network
        interaction.scenario = extras?.scenario
        interaction.drawn = extras?.drawn.sorted() ?? []
        return interaction
    }

    private static func microseconds(_ duration: Duration) -> UInt32 {
        // `components` divides 128-bit attoseconds; a request read in one go has no `send` time.
        guard duration > .zero else { return 0 }
        let (seconds, attoseconds) = duration.components
        return UInt32(clamping: max(0, seconds * 1_000_000 + attoseconds / 1_000_000_000_000))
    }

    /// Whether no stub answered it (see ``Journal/unmatched``).
    var isUnmatched: Bool {
        outcome == .unmatched || (stubName == nil && transport == .proxy)
    }
}

extension JournalRecord {
    /// The record of `request`, in flight.
    ///
    /// An extension's initializer that calls the memberwise one, which builds the record in
    /// place: set field by field in the struct's own initializer, it would be built in a
    /// temporary and copied out, each of its fields retained and released, for every request a
    /// server answers.
    init(_ request: StubRequest, transport: Interaction.Transport, redirectedFrom: Int?, startTime: Date) {
        let urlText: String, originScheme: OriginScheme?
        if let target = request.originFormTarget, let scheme = OriginScheme(request.scheme) {
            originScheme = scheme
            urlText = target
        } else {
            originScheme = nil
            urlText = request.urlString
        }
        let method = request.method, headers = request.packedHeaders ?? PackedHeaders(request.headers), body = request.body
        let extras = redirectedFrom.map { Extras(redirectedFrom: $0, nearMisses: [], responseBody: nil, network: nil) }
        let bytes = Self.size + Self.heapBytes(method) + Self.heapBytes(urlText) + headers.heapBytes + Self.heapBytes(body) + (extras == nil ? 0 : 48)
        self.init(
            method: method, urlText: urlText, headers: headers, body: body, timeoutInterval: Float(request.timeoutInterval),
            startTime: startTime.timeIntervalSinceReferenceDate, bytes: UInt32(clamping: bytes), originScheme: originScheme,
            transport: transport, extras: extras
        )
    }
}
