import Foundation

/// A part of a stub's response that may be left to chance, as the journal names it.
public enum ChanceTarget: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
    /// The fault (``StubResponse/faulted(_:chance:)``).
    case fault
    /// The delay before the head (``StubResponse/delayed(_:chance:)``).
    case delay
    /// The network profile (``StubResponse/network(_:chance:)``).
    case network
    /// The status (``StubResponse/status(_:chance:)``).
    case status

    /// In the order of the cases: fault, delay, network, status.
    public static func < (lhs: ChanceTarget, rhs: ChanceTarget) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
