import Foundation
import Understudy

/// A HAR 1.2 file: `{"log": {...}}`. Reads what browsers' DevTools, mitmproxy and Charles
/// write, and writes what they read.
///
/// The reader is tolerant: a UTF-8 byte-order mark, optional members left out, numbers written
/// as integers or decimals; members it does not know (`_custom` fields) are kept and written
/// back. Malformed files are a ``HARError`` naming the member, like
/// `log.entries[3].response.content.text: not valid base64`.
///
/// ```swift
/// let har = try HARDocument(contentsOf: URL(fileURLWithPath: "session.har"))
/// try HARDocument(journal: stubs.journal).write(to: URL(fileURLWithPath: "out.har"))
/// ```
public struct HARDocument: Sendable, Hashable, Codable {
    /// The log.
    public var log: HARLog

    /// Creates a document around `log`.
    public init(log: HARLog) {
        self.log = log
    }

    /// Reads a HAR document.
    /// - Parameters:
    ///   - data: the file's bytes (UTF-8, with or without a byte-order mark).
    ///   - file: the file's name, for error messages.
    /// - Throws: ``HARError`` naming the member that is wrong.
    public init(data: Data, file: String? = nil) throws {
        var data = data
        if data.starts(with: [0xEF, 0xBB, 0xBF]) {
            data = data.dropFirst(3)
        }
        do {
            self = try JSONDecoder().decode(HARDocument.self, from: data)
        } catch var error as HARError {
            error.file = file
            throw error
        } catch let error as DecodingError {
            var error = HARError.from(error)
            error.file = file
            throw error
        }
    }

    /// Reads the HAR file at `url`; errors name the file.
    public init(contentsOf url: URL) throws {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw HARError(file: url.path, path: "", message: "cannot read the file: \((error as NSError).localizedDescription)")
        }
        try self.init(data: data, file: url.lastPathComponent)
    }

    /// The document as pretty-printed JSON with sorted keys.
    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    /// Writes the document to `url` atomically (a temporary file, then a rename), so a reader
    /// never sees half a file.
    public func write(to url: URL) throws {
        try encoded().write(to: url, options: .atomic)
    }
}
