import FuzzSupport

/// libFuzzer entry: the bytes as a YAML stub file (see `loadStubFile`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStubFileYAML(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    loadStubFile(bytes, count, format: .yaml)
    return 0
}
