import Foundation

extension Duration {
    /// The duration in whole milliseconds, rounded.
    var milliseconds: Int {
        let (seconds, attoseconds) = components
        return Int(seconds) * 1000 + Int((Double(attoseconds) / 1e15).rounded())
    }
}
