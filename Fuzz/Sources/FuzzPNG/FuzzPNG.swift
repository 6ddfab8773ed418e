import Foundation
import UnderstudyImages

/// libFuzzer entry: the bytes decoded as a PNG with the default pixel limit. The PNG
/// signature is written over the first 8 bytes, so every input reaches libpng rather than the
/// signature check; a corrupt or oversized file must be a thrown `ImageError`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPNG(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    var data = Data(bytes: bytes, count: count)
    guard data.count >= 8 else { return 0 }
    data.replaceSubrange(0..<8, with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    _ = try? RGBAImage(decoding: data)
    return 0
}
