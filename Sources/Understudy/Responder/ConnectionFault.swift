/// What a server does to a connection before any request on it could be matched, so that no
/// stub can ask for it: MockWebServer's `DISCONNECT_AT_START` and `STALL_SOCKET_AT_START`.
///
/// Set for a server in `StubServer.Configuration.connectionFault` or with `serve --fault
/// disconnect-at-start --fault-chance 0.3`, and at run time on the registry
/// (``StubRegistry/connectionFault``) or with `PUT /__admin/settings`
/// `{"fault": "stall-at-start", "chance": 0.5}`. Which connections draw it comes from the
/// registry's seeded generator (``StubRegistry/seed``), in order of acceptance.
///
/// ```swift
/// stubs.connectionFault = ConnectionFault(.disconnectAtStart, chance: 0.3)
/// ```
public struct ConnectionFault: Sendable, Hashable, CustomStringConvertible {
    /// What happens to a connection that draws the fault.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// Accepted, then closed before a byte is read: the client's request meets a closed
        /// connection (curl: exit 52 or 56).
        case disconnectAtStart = "disconnect-at-start"
        /// Accepted, and never read from nor written to: the client waits until its own timeout
        /// (curl: exit 28). The server closes it when it stops.
        case stallAtStart = "stall-at-start"
    }

    /// What happens.
    public var kind: Kind
    /// The share of connections it happens to, from 0 to 1.
    public var chance: Double

    /// - Parameters:
    ///   - kind: what happens to a connection that draws it.
    ///   - chance: the share of connections it happens to, from 0 to 1 (every one by default).
    public init(_ kind: Kind, chance: Double = 1) {
        precondition((0...1).contains(chance), "a chance is a share from 0 to 1, not \(chance)")
        self.kind = kind
        self.chance = chance
    }

    /// `disconnect-at-start`, or `stall-at-start (chance 0.3)`.
    public var description: String {
        chance < 1 ? "\(kind.rawValue) (chance \(chance))" : kind.rawValue
    }
}

extension StubRegistry {
    /// The fault a server serving these stubs does to the connections it accepts, if any (see
    /// ``ConnectionFault``); `nil` for none.
    public var connectionFault: ConnectionFault? {
        get { state.withLock { $0.connectionFault } }
        set { state.withLock { $0.connectionFault = newValue } }
    }

    /// What the connection just accepted draws: the fault's kind when it applies, one draw from
    /// the registry's generator for a chance below 1.
    package func drawConnectionFault() -> ConnectionFault.Kind? {
        guard let fault = connectionFault else { return nil }
        guard fault.chance < 1 else { return fault.kind }
        let draw = draws.withLock { Double($0.next() >> 11) * 0x1p-53 }
        return draw < fault.chance ? fault.kind : nil
    }
}
