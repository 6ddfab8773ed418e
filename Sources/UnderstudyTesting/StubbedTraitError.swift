/// Why the `.stubbed` trait could not set a test up, such as a stub-file path that leads
/// nowhere. The test fails with it before its body runs.
struct StubbedTraitError: Error, Sendable, CustomStringConvertible {
    /// What went wrong and what to do about it.
    let description: String
}
