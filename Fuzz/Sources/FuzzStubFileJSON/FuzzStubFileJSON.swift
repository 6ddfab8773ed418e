import Foundation
import FuzzSupport
import Understudy

/// libFuzzer entry: the bytes as a JSON stub file, read as the loader reads a file (UTF-8 or
/// refused), then as an admin-API matcher document. Any issue must be a thrown
/// `StubFileError`; a crash, hang or leak is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStubFileJSON(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard let text = String(data: Data(bytes: bytes, count: count), encoding: .utf8) else { return 0 }
    _ = try? StubFileLoader.stubs(
        parsing: text, format: .json, named: "fuzz.json", relativeTo: FuzzSandbox.directory, allowsSingleStub: true
    )
    _ = try? StubFileLoader.requestMatcher(parsing: text, format: .json, named: "fuzz.json")
    return 0
}
