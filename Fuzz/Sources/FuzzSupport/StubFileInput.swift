import Foundation
@_spi(Fuzzing) import Understudy

/// What both stub-file targets do with an input, in one syntax or the other: read the bytes as
/// the loader reads a file (UTF-8 or refused), as a stub document whose `file:` paths resolve
/// in ``FuzzSandbox``, then as an admin-API matcher document. Every issue must be a thrown
/// `StubFileError`; a crash, hang or leak is a finding.
public func loadStubFile(_ bytes: UnsafePointer<UInt8>, _ count: Int, format: StubFileLoader.Format) {
    guard let text = String(data: Data(bytes: bytes, count: count), encoding: .utf8) else { return }
    let name = format == .json ? "fuzz.json" : "fuzz.yaml"
    _ = try? StubFileLoader.stubs(
        parsing: text, format: format, named: name, relativeTo: FuzzSandbox.directory, allowsSingleStub: true
    )
    try? StubFileLoader.checkRequestMatcher(parsing: text, format: format, named: name)
}
