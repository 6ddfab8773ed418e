import Foundation

/// What a stub leaves to chance: each part applies to the given share of the requests the stub
/// answers, drawn per request from the registry's seeded generator (see ``StubRegistry/seed``);
/// the other requests get the stub's answer without it.
package struct ResponseChances: Sendable, Hashable {
    /// A part of the response and the share of requests it applies to, from 0 to 1.
    package struct Part<Value: Sendable & Hashable>: Sendable, Hashable {
        package let value: Value
        package let chance: Double

        package init(_ value: Value, chance: Double) {
            self.value = value
            self.chance = chance
        }
    }

    /// The fault and the share it strikes.
    package var fault: Part<Fault>?
    /// The delay and the share it delays.
    package var delay: Part<Delay>?
    /// The network and the share delivered on it.
    package var network: Part<NetworkProfile>?
    /// The status and the share answered with it.
    package var status: Part<Int>?

    package init() {}

    /// Whether nothing is left to chance.
    package var isEmpty: Bool { fault == nil && delay == nil && network == nil && status == nil }
}
