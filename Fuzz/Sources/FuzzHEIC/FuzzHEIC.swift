import Foundation
import UnderstudyImages

/// libFuzzer entry: the bytes decoded as a HEIC (its primary image) with a 4 Mpx pixel limit.
/// `ftypheic` is written over bytes 4-11, so every input reaches libheif rather than the
/// signature check; a corrupt or oversized file must be a thrown `ImageError`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHEIC(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    var data = Data(bytes: bytes, count: count)
    guard data.count >= 12 else { return 0 }
    data.replaceSubrange(4..<12, with: Array("ftypheic".utf8))
    _ = try? RGBAImage(decoding: data, pixelLimit: 4_194_304)
    return 0
}
