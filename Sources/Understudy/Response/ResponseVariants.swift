import Foundation
import UnderstudyImages
import UnderstudySupport

/// The 304, 206 and 416 answers made from one kept rendering (see `RenderCache`), kept with it:
/// a client revalidating or asking for the same range again gets the same answer without it
/// being made again, and under its own render id, so a transport frames it once too.
package final class ResponseVariants: Sendable {
    /// The most variants kept per rendering, and the most body bytes they hold together
    /// (ranges of a large file, asked for at many offsets, would otherwise pile up): a
    /// ``BoundedCache``, the least recently asked variant going first.
    static let capacity = 64
    static let byteCapacity = 32 * 1024 * 1024

    private let state = LockedState(BoundedCache<ConditionalRequest.Selection, PreparedResponse>(countLimit: ResponseVariants.capacity, costLimit: ResponseVariants.byteCapacity))

    /// The variant for `selection`, made by `make` the first time.
    func variant(_ selection: ConditionalRequest.Selection, make: () -> PreparedResponse) -> PreparedResponse {
        if let known = state.withLock({ $0.value(for: selection) }) { return known }
        var made = make()
        made.renderID = RenderCache.nextRenderID()
        return state.withLock { state in
            if let raced = state.value(for: selection) { return raced }
            guard state.insert(made, for: selection, cost: made.body.count) else {
                // Larger than all the variants may be together: made per request.
                made.renderID = nil
                made.sourceFile = nil
                return made
            }
            return made
        }
    }

    /// The body of variant `renderID`, if it is one of these.
    func body(ofRendering renderID: UInt64) -> Data? {
        state.withLock { $0.values.first { $0.renderID == renderID }?.body }
    }
}
