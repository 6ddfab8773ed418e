import Foundation

/// The verdict of `understudy check DIR...`: every issue in every stub file, or a summary.
///
/// ```swift
/// let check = StubFileCheck(paths: [URL(fileURLWithPath: "Stubs")])
/// check.isValid     // false when any file has an issue
/// check.errors      // ["Stubs/cats.yaml:12: stubs[2].response.fault: unknown fault 'explode'; ..."]
/// check.summary     // "OK: 12 stubs in 3 files from Stubs"
/// ```
public struct StubFileCheck: Sendable {
    /// The directories and files checked, as given.
    public let paths: [URL]
    /// The WireMock directories checked, as given.
    public let wireMockDirectories: [URL]
    /// One line per issue, in path order, then file order, then line order.
    public let errors: [String]
    /// The number of valid stubs read.
    public let stubCount: Int
    /// The number of stub files read.
    public let fileCount: Int

    /// Checks each directory (recursively) or file, each as its own load, then each WireMock directory.
    /// - Parameters:
    ///   - paths: directories or files of stub files; messages name them by their `relativePath`.
    ///   - wireMock: WireMock directories (`mappings/` and `__files/`), read as ``WireMockLoader`` does.
    public init(paths: [URL], wireMock: [URL] = []) {
        self.paths = paths
        self.wireMockDirectories = wireMock
        var errors: [String] = []
        var stubCount = 0
        var fileCount = 0
        for (index, path) in (paths + wireMock).enumerated() {
            do {
                let loaded = index < paths.count ? try StubFileLoader.load(from: path) : try WireMockLoader.load(from: path)
                stubCount += loaded.stubs.count
                fileCount += loaded.files.count
            } catch let error as StubFileError {
                errors += error.issues.map(\.description)
            } catch {
                errors.append("\(path.relativePath): \(error)")
            }
        }
        self.errors = errors
        self.stubCount = stubCount
        self.fileCount = fileCount
    }

    /// Whether every file is valid.
    public var isValid: Bool {
        errors.isEmpty
    }

    /// The process exit status: 0 when valid, 2 when any issue was found.
    package var exitCode: Int32 {
        isValid ? 0 : 2
    }

    /// `OK: 12 stubs in 3 files from Stubs` (paths comma-separated); with issues, how many.
    public var summary: String {
        let sources = (paths + wireMockDirectories).map(\.relativePath).joined(separator: ", ")
        guard isValid else {
            return "\(errors.count) \(errors.count == 1 ? "error" : "errors") in stub files from \(sources)"
        }
        let stubs = "\(stubCount) \(stubCount == 1 ? "stub" : "stubs")"
        let files = "\(fileCount) \(fileCount == 1 ? "file" : "files")"
        return "OK: \(stubs) in \(files) from \(sources)"
    }
}
