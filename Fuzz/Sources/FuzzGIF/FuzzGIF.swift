import Foundation
import UnderstudyImages

/// libFuzzer entry: the bytes decoded as a GIF, every frame composited (disposal and
/// transparency), with a 4 Mpx pixel limit for all frames together. `GIF89a` is written over
/// bytes 0-5, so every input reaches giflib rather than the signature check; a corrupt or
/// oversized file must be a thrown `ImageError`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGIF(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    var data = Data(bytes: bytes, count: count)
    guard data.count >= 6 else { return 0 }
    data.replaceSubrange(0..<6, with: Array("GIF89a".utf8))
    _ = try? RGBAImage.frames(decoding: data, pixelLimit: 4_194_304)
    return 0
}
