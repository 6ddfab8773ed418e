import Foundation

extension PreparedResponse {
    /// The response with what its stub left to chance drawn for one request: each part applies
    /// when a draw falls under its chance, in a fixed order (status, network, delay, fault), one
    /// draw per part whose chance is below 1, so the same seed and the same requests in the same
    /// order draw the same. The parts below 1 that applied are recorded in ``drawn``.
    package func drawing<G: RandomNumberGenerator>(using generator: inout G) -> PreparedResponse {
        guard let chances else { return self }
        var drawnResponse = self
        drawnResponse.chances = nil
        func applies(_ chance: Double) -> Bool {
            guard chance < 1 else { return true }
            // 53 random bits: every double in [0, 1) a draw can give, evenly.
            return Double(generator.next() >> 11) * 0x1p-53 < chance
        }
        if let part = chances.status, applies(part.chance) {
            drawnResponse.status = part.value
            // Another status is another head: no transport may reuse the rendering's encoding.
            drawnResponse.renderID = nil
            if part.chance < 1 { drawnResponse.drawn.insert(.status) }
        }
        if let part = chances.network, applies(part.chance) {
            drawnResponse = drawnResponse.delivered(on: part.value)
            if part.chance < 1 { drawnResponse.drawn.insert(.network) }
        }
        if let part = chances.delay, applies(part.chance) {
            // The stub's own delay replaces a profile's latency, as it does when always applied.
            if !drawnResponse.ownsDelay, let profile = drawnResponse.network { drawnResponse.delay -= profile.latency }
            drawnResponse.delay += part.value.sample(using: &generator)
            drawnResponse.ownsDelay = true
            if part.chance < 1 { drawnResponse.drawn.insert(.delay) }
        }
        if let part = chances.fault, applies(part.chance) {
            drawnResponse.fault = part.value
            if part.chance < 1 { drawnResponse.drawn.insert(.fault) }
        }
        return drawnResponse
    }
}
