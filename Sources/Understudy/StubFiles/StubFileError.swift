import Foundation

/// Everything wrong with a set of stub files: every issue found, not only the first.
///
/// Each issue prints as one line, `FILE:LINE: PATH: message`:
/// ```
/// Stubs/cats.yaml:12: stubs[2].response.fault: unknown fault 'explode'; expected one of connection-reset, ...
/// ```
public struct StubFileError: Error, Sendable, CustomStringConvertible {
    /// One problem in one place.
    public struct Issue: Sendable, Hashable, CustomStringConvertible {
        /// The file as the caller named it: the directory given to the loader joined with the
        /// file's path inside it (`Stubs/cats/webp.yaml`).
        public let file: String
        /// The 1-based line, when the problem has one.
        public let line: Int?
        /// Where in the document, like `stubs[2].response.fault`; `nil` for whole-file problems.
        public let path: String?
        /// What was found and what was expected.
        public let message: String

        /// Creates an issue.
        /// - Parameters:
        ///   - file: the file as the caller named it.
        ///   - line: the 1-based line, if known.
        ///   - path: the place in the document, if any.
        ///   - message: what was found and what was expected.
        public init(file: String, line: Int?, path: String?, message: String) {
            self.file = file
            self.line = line
            self.path = path
            self.message = message
        }

        /// `FILE:LINE: PATH: message`, leaving out the parts the issue does not have.
        public var description: String {
            var text = file
            if let line { text += ":\(line)" }
            if let path { text += ": \(path)" }
            return text + ": " + message
        }
    }

    /// Every issue, in file order and then line order.
    public let issues: [Issue]

    /// Creates an error from its issues.
    public init(issues: [Issue]) {
        self.issues = issues
    }

    /// One issue per line.
    public var description: String {
        issues.map(\.description).joined(separator: "\n")
    }
}
