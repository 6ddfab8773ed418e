import Foundation

/// One request and what became of it: a journal entry.
public struct Interaction: Sendable, Identifiable, CustomStringConvertible {
    /// Which transport carried it.
    public enum Transport: String, Sendable, Hashable, Codable {
        /// The URL protocol, inside the test process.
        case inProcess
        /// The stub server, as an origin or forward proxy.
        case server
        /// Passed upstream unmatched (pass-through or `--proxy-unmatched`).
        case proxy
    }

    /// How it ended.
    public enum Outcome: Sendable, Hashable, CustomStringConvertible {
        /// Still being delivered.
        case inFlight
        /// The response was delivered in full.
        case completed
        /// A fault was injected.
        case fault(Fault)
        /// The body was cut after this many bytes (`truncated(after:)`).
        case truncated(bytes: Int)
        /// The client cancelled it.
        case cancelled
        /// No stub matched and the request was refused.
        case unmatched
        /// Rendering failed (unreadable file, throwing closure, failed upstream).
        case failed(String)
        /// A `CONNECT` spliced to the real host byte for byte (`--tunnel`): how many bytes went
        /// each way.
        case tunnelled(bytesFromClient: Int, bytesToClient: Int)

        public var description: String {
            switch self {
            case .inFlight: return "in flight"
            case .completed: return "completed"
            case .fault(let fault): return "fault \(fault)"
            case .truncated(let bytes): return "truncated after \(bytes) bytes"
            case .cancelled: return "cancelled"
            case .unmatched: return "unmatched"
            case .failed(let message): return "failed: \(message)"
            case .tunnelled(let sent, let received): return "tunnelled (\(sent) bytes from the client, \(received) to it)"
            }
        }
    }

    /// The phases of an exchange as HAR counts them.
    public struct Timing: Sendable, Hashable {
        /// Reading the request in full (its body, mostly).
        public var send: Duration
        /// From the request read to the response head sent: matching, rendering, stubbed delays.
        public var wait: Duration
        /// Sending the body, paced or not.
        public var receive: Duration

        /// Creates a timing.
        public init(send: Duration = .zero, wait: Duration = .zero, receive: Duration = .zero) {
            self.send = send
            self.wait = wait
            self.receive = receive
        }
    }

    /// Sequential within a journal, from 1.
    public let id: Int
    /// The request as the stubs saw it.
    public let request: StubRequest
    /// The stub that answered; `nil` when none matched.
    public internal(set) var stubName: String?
    /// The status sent, if a response head was sent.
    public internal(set) var status: Int?
    /// The headers sent.
    public internal(set) var responseHeaders: HeaderFields
    /// Body bytes actually sent.
    public internal(set) var bodyBytesSent: Int
    /// The body bytes actually sent, when the journal keeps bodies (``Journal/keepsBodies``);
    /// `nil` otherwise.
    public internal(set) var responseBody: Data?
    /// How it ended.
    public internal(set) var outcome: Outcome
    /// When the request arrived.
    public let startTime: Date
    /// From arrival to the last byte or the failure.
    public internal(set) var duration: Duration
    /// How ``duration`` divides into sending the request, waiting for the response and receiving it.
    public internal(set) var timing: Timing
    /// The transport that carried it.
    public internal(set) var transport: Transport
    /// The HTTP version it came over: `HTTP/1.1`, or `HTTP/2` for the server's HTTP/2 streams
    /// (in-process requests are `HTTP/1.1`).
    public internal(set) var httpVersion: Interaction.HTTPVersion
    /// The server connection the request came on, from 1 in order of acceptance; `nil` for
    /// in-process requests. Two requests with the same number shared a connection.
    public internal(set) var connection: Int?
    /// The request's place on its ``connection``, from 1; `nil` for in-process requests.
    public internal(set) var exchange: Int?
    /// What the connection's TLS handshake settled, when it had TLS.
    public internal(set) var tls: TLS?
    /// The network profile the response was delivered on (the stub's, the run-time one or the
    /// server's), or `nil` for full speed.
    public internal(set) var network: NetworkProfile?
    /// The parts of the stub's answer left to chance (`chance:`) that this request drew, in
    /// the order fault, delay, network, status; empty when it drew none.
    public internal(set) var drawn: [ChanceTarget] = []
    /// The interaction whose redirect led here, for redirect hops.
    public let redirectedFrom: Int?
    /// For unmatched requests, the nearest stubs and what differed.
    public internal(set) var nearMisses: [NearMiss]
    /// Where the request left the answering stub's scenario, when the stub takes part in one.
    public internal(set) var scenario: ScenarioStep?
    /// The shared rendering the response came from (see `RenderCache`), whose body the
    /// registry can still hand out without the journal keeping a copy.
    package internal(set) var renderID: UInt64?

    init(id: Int, request: StubRequest, transport: Transport, redirectedFrom: Int?, startTime: Date) {
        self.id = id
        self.request = request
        self.transport = transport
        self.redirectedFrom = redirectedFrom
        self.startTime = startTime
        self.stubName = nil
        self.status = nil
        self.responseHeaders = [:]
        self.bodyBytesSent = 0
        self.responseBody = nil
        self.outcome = .inFlight
        self.duration = .zero
        self.timing = Timing()
        self.nearMisses = []
        self.renderID = nil
        self.httpVersion = .http1_1
    }

    /// The fault injected, if any.
    public var fault: Fault? {
        if case .fault(let fault) = outcome { return fault }
        return nil
    }

    /// Whether a stub answered it.
    public var isMatched: Bool { stubName != nil }

    /// `GET http://host/a.png -> stub "cat" 200 (12 ms)`.
    public var description: String {
        let answer = stubName.map { "stub \"\($0)\"" } ?? "unmatched"
        let result = status.map(String.init) ?? outcome.description
        return "\(request) -> \(answer) \(result)"
    }
}

/// What a transport reports when an interaction ends.
package struct InteractionResult: Sendable {
    /// The answering stub.
    package var stubName: String?
    /// The status sent, if any.
    package var status: Int?
    /// The headers sent.
    package var headers: HeaderFields
    /// Body bytes sent.
    package var bodyBytesSent: Int
    /// The body bytes sent; the journal keeps them only when ``Journal/keepsBodies`` is set.
    package var responseBody: Data?
    /// How it ended.
    package var outcome: Interaction.Outcome
    /// Nearest stubs, for unmatched requests.
    package var nearMisses: [NearMiss]
    /// The transport, when it turned out to differ from the one the entry began with
    /// (an unmatched request passed upstream becomes `.proxy`).
    package var transport: Interaction.Transport?
    /// The phases of the exchange.
    package var timing: Interaction.Timing
    /// The shared rendering the response came from, if any.
    package var renderID: UInt64?
    /// `HTTP/1.1` or `HTTP/2`, when the transport says (else the entry keeps what it opened with).
    package var httpVersion: Interaction.HTTPVersion?
    /// The server connection it came on, when the transport says.
    package var connection: ConnectionFacts?
    /// The network profile the response was delivered on, if any.
    package var network: NetworkProfile?
    /// Where the request left the answering stub's scenario.
    package var scenario: ScenarioStep?
    /// What the stub left to chance that this request drew.
    package var drawn: Set<ChanceTarget> = []
}

extension InteractionResult {
    /// Creates a result.
    ///
    /// In an extension, so that the struct keeps its memberwise initializer, which builds the
    /// result in place rather than in a temporary whose fields are each retained and released
    /// on the copy (``StubAnswer/result(_:)`` uses the memberwise one, for every request a
    /// server answers).
    package init(
        stubName: String?, status: Int?, headers: HeaderFields = [:], bodyBytesSent: Int = 0,
        outcome: Interaction.Outcome, nearMisses: [NearMiss] = [], transport: Interaction.Transport? = nil,
        responseBody: Data? = nil, timing: Interaction.Timing = Interaction.Timing(), renderID: UInt64? = nil,
        httpVersion: Interaction.HTTPVersion? = nil, connection: ConnectionFacts? = nil, network: NetworkProfile? = nil,
        scenario: ScenarioStep? = nil
    ) {
        self.init(
            stubName: stubName, status: status, headers: headers, bodyBytesSent: bodyBytesSent, responseBody: responseBody,
            outcome: outcome, nearMisses: nearMisses, transport: transport, timing: timing, renderID: renderID,
            httpVersion: httpVersion, connection: connection, network: network, scenario: scenario
        )
    }
}
