import FuzzSupport

/// libFuzzer entry: the bytes as a JSON stub file (see `loadStubFile`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStubFileJSON(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    loadStubFile(bytes, count, format: .json)
    return 0
}
