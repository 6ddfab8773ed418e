import Foundation
import UnderstudyImages

/// libFuzzer entry: the bytes decoded as a JPEG with the default pixel limit. The JPEG
/// signature (`FF D8 FF`) is written over the first 3 bytes, so every input reaches libjpeg
/// rather than the signature check; a corrupt, truncated or oversized file must be a thrown
/// `ImageError`, and a progressive file with endless scans is stopped after 500.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJPEG(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    var data = Data(bytes: bytes, count: count)
    guard data.count >= 3 else { return 0 }
    data.replaceSubrange(0..<3, with: [0xFF, 0xD8, 0xFF])
    _ = try? RGBAImage(decoding: data)
    return 0
}
