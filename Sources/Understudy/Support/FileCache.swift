import Foundation

/// Canned files kept in memory, re-read only when their size or modification time changes, so a
/// stub server does not read the same image from disk for every request, and an edited file is
/// still served fresh.
final class FileCache: Sendable {
    static let shared = FileCache(capacity: 128 * 1024 * 1024)

    private struct Entry {
        let size: Int64
        let modified: Date
        let data: Data
    }

    private let capacity: Int
    private let state = LockedState<(entries: [String: Entry], bytes: Int)>(([:], 0))

    init(capacity: Int) {
        self.capacity = capacity
    }

    func contents(of url: URL) throws -> Data {
        let path = url.path
        // stat(2) rather than FileManager's attributes: this runs for every request.
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: path])
        }
        let size = Int64(info.st_size)
        #if canImport(Darwin)
        let modified = Date(timeIntervalSince1970: Double(info.st_mtimespec.tv_sec) + Double(info.st_mtimespec.tv_nsec) / 1e9)
        #else
        let modified = Date(timeIntervalSince1970: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
        #endif
        if let entry = state.withLock({ $0.entries[path] }), entry.size == size, entry.modified == modified {
            return entry.data
        }
        let data = try Data(contentsOf: url)
        guard data.count <= capacity / 4 else { return data }
        state.withLock { state in
            if state.bytes + data.count > capacity {
                // Rarely reached (stub files name a handful of files): start afresh.
                state.entries.removeAll()
                state.bytes = 0
            }
            state.bytes += data.count - (state.entries[path]?.data.count ?? 0)
            state.entries[path] = Entry(size: size, modified: modified, data: data)
        }
        return data
    }
}
