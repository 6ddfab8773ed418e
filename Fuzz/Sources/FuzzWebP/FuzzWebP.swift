import Foundation
import UnderstudyImages

/// libFuzzer entry: the bytes decoded as a WebP with the default pixel limit. The RIFF and
/// WEBP tags are written over bytes 0-3 and 8-11, so every input reaches libwebp rather than
/// the signature check; a corrupt or oversized file must be a thrown `ImageError`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWebP(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    var data = Data(bytes: bytes, count: count)
    guard data.count >= 12 else { return 0 }
    data.replaceSubrange(0..<4, with: Array("RIFF".utf8))
    data.replaceSubrange(8..<12, with: Array("WEBP".utf8))
    _ = try? RGBAImage(decoding: data)
    return 0
}
