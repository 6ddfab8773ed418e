import Foundation

/// What identifies a version of a file: its size and modification time, and which file it is
/// (device and inode), so that a file saved by renaming a new one over it counts as changed
/// even when size and time come out the same. A cache keyed by it sees a rewritten or replaced
/// file as a new one, without reading or hashing the contents. The one file identity of the
/// package: the transcoder's cache, the render cache and `sendfile(2)` all go by it.
package struct FileStamp: Sendable, Hashable {
    /// The size in bytes.
    package let size: Int64
    /// The modification time.
    package let modified: Date
    let device: UInt64
    let inode: UInt64

    package init(_ info: stat) {
        #if canImport(Darwin)
        modified = Date(timeIntervalSince1970: Double(info.st_mtimespec.tv_sec) + Double(info.st_mtimespec.tv_nsec) / 1e9)
        #else
        modified = Date(timeIntervalSince1970: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
        #endif
        size = Int64(info.st_size)
        // dev_t is an Int32 on Darwin and a UInt64 on Linux: its bits, never a trap on a
        // negative device number.
        device = UInt64(truncatingIfNeeded: info.st_dev)
        inode = UInt64(truncatingIfNeeded: info.st_ino)
    }

    /// The stamp of the file at `path`, from one `stat(2)`; `nil` when it cannot be looked at.
    package init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        self.init(info)
    }

    /// The stamp of a regular file, or `nil` when it cannot be looked at or is not one (the
    /// read reports why).
    package init?(_ url: URL) {
        var info = stat()
        guard stat(url.standardizedFileURL.path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        self.init(info)
    }

    /// The stamp of the file open as `descriptor`; `nil` when `fstat(2)` fails.
    package init?(descriptor: Int32) {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        self.init(info)
    }
}
