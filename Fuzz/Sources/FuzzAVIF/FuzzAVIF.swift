import Foundation
import UnderstudyImages

/// libFuzzer entry: the bytes decoded as an AVIF (every frame of a sequence) with a 4 Mpx pixel
/// limit. `ftypavif` is written over bytes 4-11, so every input reaches libavif rather than the
/// signature check; a corrupt or oversized file must be a thrown `ImageError`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAVIF(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    var data = Data(bytes: bytes, count: count)
    guard data.count >= 12 else { return 0 }
    data.replaceSubrange(4..<12, with: Array("ftypavif".utf8))
    _ = try? RGBAImage.frames(decoding: data, pixelLimit: 4_194_304)
    return 0
}
