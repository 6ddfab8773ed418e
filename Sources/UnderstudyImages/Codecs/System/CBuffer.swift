#if UNDERSTUDY_SYSTEM_CODECS || UNDERSTUDY_HOMEBREW_CODECS
import Foundation

/// Bytes copied to memory of their own, for a C decoder that keeps a pointer to its input
/// beyond one call (libavif, libheif, giflib read as they decode). `Data.withUnsafeBytes` gives
/// a pointer valid only inside its closure (small `Data` values live inline), so the decoders
/// hold one of these instead.
final class CBuffer {
    let base: UnsafeMutablePointer<UInt8>
    let count: Int

    init(_ data: Data) {
        count = data.count
        base = .allocate(capacity: max(count, 1))
        _ = data.copyBytes(to: UnsafeMutableBufferPointer(start: base, count: count))
    }

    deinit { base.deallocate() }
}
#endif
