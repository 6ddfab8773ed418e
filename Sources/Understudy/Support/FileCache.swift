import Foundation
import UnderstudyImages
import UnderstudySupport

/// Canned files kept in memory, re-read only when their size or modification time changes, so a
/// stub server does not read the same image from disk for every request, and an edited file is
/// still served fresh. A ``BoundedCache`` in bytes: the least recently read files go first.
final class FileCache: Sendable {
    static let shared = FileCache(capacity: 128 * 1024 * 1024)

    private struct Entry {
        let stamp: FileStamp
        let data: Data
    }

    private let capacity: Int
    private let state: LockedState<BoundedCache<String, Entry>>

    init(capacity: Int) {
        self.capacity = capacity
        self.state = LockedState(BoundedCache(costLimit: capacity))
    }

    /// The file's current stamp, from one `stat(2)`; `nil` when it cannot be read.
    func stamp(of path: String) -> FileStamp? {
        FileStamp(path: path)
    }

    func contents(of url: URL) throws -> Data {
        try contentsAndStamp(of: url).data
    }

    /// The file's bytes and the stamp they were read under.
    func contentsAndStamp(of url: URL) throws -> (data: Data, stamp: FileStamp) {
        let path = url.path
        // stat(2) rather than FileManager's attributes: this runs for every request.
        guard let stamp = stamp(of: path) else {
            throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: path])
        }
        if let entry = state.withLock({ $0.value(for: path) }), entry.stamp == stamp {
            return (entry.data, stamp)
        }
        let data = try Data(contentsOf: url)
        guard data.count <= capacity / 4 else { return (data, stamp) }
        state.withLock { $0.insert(Entry(stamp: stamp, data: data), for: path, cost: data.count) }
        return (data, stamp)
    }
}
