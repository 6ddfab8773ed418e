import Foundation

/// The 304, 206 and 416 answers made from one kept rendering (see `RenderCache`), kept with it:
/// a client revalidating or asking for the same range again gets the same answer without it
/// being made again, and under its own render id, so a transport frames it once too.
package final class ResponseVariants: Sendable {
    /// The most variants kept per rendering, and the most body bytes they hold together
    /// (ranges of a large file, asked for at many offsets, would otherwise pile up); beyond
    /// either, answers are made per request.
    static let capacity = 64
    static let byteCapacity = 32 * 1024 * 1024

    private let state = LockedState<(variants: [ConditionalRequest.Selection: PreparedResponse], bytes: Int)>(([:], 0))

    /// The variant for `selection`, made by `make` the first time.
    func variant(_ selection: ConditionalRequest.Selection, make: () -> PreparedResponse) -> PreparedResponse {
        if let known = state.withLock({ $0.variants[selection] }) { return known }
        var made = make()
        made.renderID = RenderCache.nextRenderID()
        return state.withLock { state in
            if let raced = state.variants[selection] { return raced }
            guard state.variants.count < Self.capacity, state.bytes + made.body.count <= Self.byteCapacity else {
                made.renderID = nil
                made.sourceFile = nil
                return made
            }
            state.variants[selection] = made
            state.bytes += made.body.count
            return made
        }
    }

    /// The body of variant `renderID`, if it is one of these.
    func body(ofRendering renderID: UInt64) -> Data? {
        state.withLock { $0.variants.values.first { $0.renderID == renderID }?.body }
    }
}
