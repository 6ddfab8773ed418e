import Foundation

/// Canned files kept in memory, re-read only when their size or modification time changes, so a
/// stub server does not read the same image from disk for every request, and an edited file is
/// still served fresh.
final class FileCache: Sendable {
    static let shared = FileCache(capacity: 128 * 1024 * 1024)

    private struct Entry {
        let stamp: Stamp
        let data: Data
    }

    private let capacity: Int
    private let state = LockedState<(entries: [String: Entry], bytes: Int)>(([:], 0))

    init(capacity: Int) {
        self.capacity = capacity
    }

    typealias Stamp = FileStamp

    /// The file's current stamp, from one `stat(2)`; `nil` when it cannot be read.
    func stamp(of path: String) -> Stamp? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return FileStamp(info)
    }

    func contents(of url: URL) throws -> Data {
        try contentsAndStamp(of: url).data
    }

    /// The file's bytes and the stamp they were read under.
    func contentsAndStamp(of url: URL) throws -> (data: Data, stamp: Stamp) {
        let path = url.path
        // stat(2) rather than FileManager's attributes: this runs for every request.
        guard let stamp = stamp(of: path) else {
            throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: path])
        }
        if let entry = state.withLock({ $0.entries[path] }), entry.stamp == stamp {
            return (entry.data, stamp)
        }
        let data = try Data(contentsOf: url)
        guard data.count <= capacity / 4 else { return (data, stamp) }
        state.withLock { state in
            if state.bytes + data.count > capacity {
                // Rarely reached (stub files name a handful of files): start afresh.
                state.entries.removeAll()
                state.bytes = 0
            }
            state.bytes += data.count - (state.entries[path]?.data.count ?? 0)
            state.entries[path] = Entry(stamp: stamp, data: data)
        }
        return (data, stamp)
    }
}

/// What identifies a version of a file: its size and modification time, and which file it is
/// (device and inode), so that a file saved by renaming a new one over it counts as changed
/// even when size and time come out the same.
package struct FileStamp: Sendable, Hashable {
    let size: Int64
    let modified: Date
    let device: UInt64
    let inode: UInt64

    init(_ info: stat) {
        #if canImport(Darwin)
        modified = Date(timeIntervalSince1970: Double(info.st_mtimespec.tv_sec) + Double(info.st_mtimespec.tv_nsec) / 1e9)
        #else
        modified = Date(timeIntervalSince1970: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
        #endif
        size = Int64(info.st_size)
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }

    /// The stamp of the file open as `descriptor`; `nil` when `fstat(2)` fails.
    package init?(descriptor: Int32) {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        self.init(info)
    }
}
