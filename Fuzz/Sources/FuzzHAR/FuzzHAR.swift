import Foundation
import Understudy
import UnderstudyHAR

/// libFuzzer entry: the bytes as a HAR file, and a HAR that reads turned into replay stubs
/// (each key of `HARMatchKey`'s default). A malformed file must be a thrown `HARError`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHAR(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard let document = try? HARDocument(data: Data(bytes: bytes, count: count), file: "fuzz.har") else { return 0 }
    let registry = StubRegistry()
    _ = registry.load(har: document, name: "fuzz")
    _ = try? document.encoded()
    return 0
}
