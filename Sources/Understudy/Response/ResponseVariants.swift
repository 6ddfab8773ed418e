import Foundation

/// The 304, 206 and 416 answers made from one kept rendering (see `RenderCache`), kept with it:
/// a client revalidating or asking for the same range again gets the same answer without it
/// being made again, and under its own render id, so a transport frames it once too.
package final class ResponseVariants: Sendable {
    /// The most variants kept per rendering; beyond, answers are made per request.
    static let capacity = 64

    private let state = LockedState<[ConditionalRequest.Selection: PreparedResponse]>([:])

    /// The variant for `selection`, made by `make` the first time.
    func variant(_ selection: ConditionalRequest.Selection, make: () -> PreparedResponse) -> PreparedResponse {
        if let known = state.withLock({ $0[selection] }) { return known }
        var made = make()
        made.renderID = RenderCache.nextRenderID()
        return state.withLock { variants in
            if let raced = variants[selection] { return raced }
            guard variants.count < Self.capacity else {
                made.renderID = nil
                return made
            }
            variants[selection] = made
            return made
        }
    }

    /// The body of variant `renderID`, if it is one of these.
    func body(ofRendering renderID: UInt64) -> Data? {
        state.withLock { variants in variants.values.first { $0.renderID == renderID }?.body }
    }
}
