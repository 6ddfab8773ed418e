import Foundation

/// A file's identity as it is now: path, size, modification time and inode. A cache keyed by it
/// sees a rewritten or replaced file as a new one, without reading or hashing the contents.
struct FileStamp: Hashable, Sendable {
    let path: String
    let size: UInt64
    let modified: Date
    let inode: UInt64

    /// The stamp of a regular file, or `nil` when it cannot be looked at (the read reports why).
    init?(_ url: URL) {
        let path = url.standardizedFileURL.path
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
              attributes[.type] as? FileAttributeType == .typeRegular,
              let size = (attributes[.size] as? NSNumber)?.uint64Value,
              let modified = attributes[.modificationDate] as? Date
        else { return nil }
        self.path = path
        self.size = size
        self.modified = modified
        self.inode = (attributes[.systemFileNumber] as? NSNumber)?.uint64Value ?? 0
    }
}
