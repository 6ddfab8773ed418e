import Foundation

extension StubRegistry {
    /// `response` with what its stub left to chance drawn from the registry's generator, one
    /// request after another in the order they ask (see ``seed``).
    package func drawn(_ response: PreparedResponse) -> PreparedResponse {
        guard response.chances != nil else { return response }
        return draws.withLock { response.drawing(using: &$0) }
    }
}
