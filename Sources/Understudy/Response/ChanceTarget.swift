import Foundation

/// A part of a stub's response that may be left to chance, as the journal names it.
public enum ChanceTarget: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
    case fault, delay, network, status

    public static func < (lhs: ChanceTarget, rhs: ChanceTarget) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
