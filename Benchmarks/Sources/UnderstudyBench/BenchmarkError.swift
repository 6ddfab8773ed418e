/// A benchmark that cannot run, or whose inputs are wrong; the message says which.
struct BenchmarkError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = description }
}
