import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A certificate, key or CA directory that cannot be used, naming the file and what was expected.
///
/// ```
/// /home/me/.understudy/ca/ca-key.pem: the CA key file has mode 0644, which lets group or others read it; expected 0600 (chmod 600 /home/me/.understudy/ca/ca-key.pem)
/// ```
public struct TLSFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file or directory at fault, as a path.
    public let file: String
    /// What is wrong with it and what was expected.
    public let message: String

    package init(file: String, _ message: String) {
        self.file = file
        self.message = message
    }

    public var description: String { "\(file): \(message)" }
}

extension TLSFileError {
    /// The text of the file at `path`, or an error naming it and the system's reason
    /// (`No such file or directory`, `Permission denied`).
    static func readText(_ path: String) throws -> String {
        if let data = FileManager.default.contents(atPath: path) {
            return String(decoding: data, as: UTF8.self)
        }
        var isDirectory: ObjCBool = false
        let reason: String
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            reason = "it is a directory"
        } else if access(path, R_OK) != 0 {
            reason = String(cString: strerror(errno))
        } else {
            reason = "unknown error"
        }
        throw TLSFileError(file: path, "cannot read the file (\(reason))")
    }
}
