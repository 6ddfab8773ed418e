#if canImport(Glibc) && !UNDERSTUDY_PORTABLE
// Linux's backend, this whole file; FileChangeMonitor+Fallback.swift is everyone else's.
import Glibc
import Synchronization
import UnderstudyImages
import UnderstudySupport

/// Tells whether watched files may have changed, without a `stat(2)` per question.
///
/// A stub server answers the same file thousands of times a second and must still serve an
/// edited file at once. Checking its stamp (size, modification time, inode) costs a `stat(2)`
/// each time, a walk of the whole path, costly beside the rest of a canned answer.
/// inotify instead queues an event during the very write, rename or delete that changes a
/// file, before that call returns, so one `poll(2)` of the queue (no path walk) tells whether
/// the stamp needs looking at again: answers stay as fresh as with a `stat` each time (on a
/// server's event loop, as of the moment the loop woke for the request: see ``FileCheckTurn``).
///
/// A file's own directory is watched for any change to its entries, and every directory above
/// it for entries created, removed or renamed, so replacing the file or any directory on its
/// path counts as a change. Any event counts, whichever entry it names: a change elsewhere in
/// those directories only costs the callers one `stat(2)` each. Linux only; elsewhere (and in
/// the `UNDERSTUDY_PORTABLE` build) there is no monitor, and when inotify is out of watches,
/// callers fall back to the stamp.
final class FileChangeMonitor: Sendable {
    /// The process's monitor, or `nil` when inotify cannot be used.
    static let shared = FileChangeMonitor()

    private struct State {
        /// Each watched directory's watch and the events it asked for.
        var watches: [String: (watch: Int32, events: UInt32)] = [:]
    }

    /// What can change which file a path names.
    private static let namingEvents = UInt32(IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF)
    /// What can change a file's contents, watched in the file's own directory.
    private static let contentEvents = namingEvents | UInt32(IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE)
    /// Events about a watch itself rather than an entry.
    private static let selfEvents = UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED | IN_UNMOUNT | IN_Q_OVERFLOW)

    private let descriptor: Int32
    private let state = LockedState(State())
    /// Counts the changes seen: equal values mean nothing watched changed in between. Read
    /// without the lock on every request; moved on only under it.
    private let changes = Atomic<UInt64>(0)
    /// Counts the times watches were forgotten (a watched directory moved or went away): while
    /// it stands, a path watched once is still watched, and ``watch(_:)`` need not walk it again.
    private let forgets = Atomic<UInt64>(0)

    private init?() {
        let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { return nil }
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    /// Watches the file at the absolute `path`: from now on a change to it, or to any
    /// directory on its path, moves ``generation()`` on.
    /// - Returns: `false` when it cannot be watched (a relative path, or inotify refused).
    func watch(_ path: String) -> Bool {
        guard path.hasPrefix("/") else { return false }
        let names = path.split(separator: "/").map(String.init)
        guard !names.isEmpty else { return false }
        return state.withLock { state in
            var directory = "/"
            for (index, name) in names.enumerated() {
                let wanted = index == names.count - 1 ? Self.contentEvents : Self.namingEvents
                if let existing = state.watches[directory], existing.events & wanted == wanted {
                    // Watched already.
                } else {
                    let watch = inotify_add_watch(descriptor, directory, wanted | UInt32(IN_MASK_ADD) | UInt32(IN_ONLYDIR))
                    guard watch >= 0 else { return false }
                    state.watches[directory] = (watch, (state.watches[directory]?.events ?? 0) | wanted)
                }
                directory += directory == "/" ? name : "/" + name
            }
            return true
        }
    }

    /// Moves on whenever watches are forgotten: a path ``watch(_:)`` watched when this had a
    /// value is still watched while it has the same one.
    var watchEpoch: UInt64 {
        forgets.load(ordering: .sequentiallyConsistent)
    }

    /// How many changes have been seen so far, counting what the kernel has queued.
    ///
    /// The queue is looked at without the lock (`poll(2)`, which consumes nothing), so two event
    /// loops asking at once do not queue up behind each other's system calls. A reader that
    /// finds events takes the lock, moves the generation on, then drains: anyone who finds the
    /// queue empty afterwards also finds the new generation.
    ///
    /// With a `turn`, the queue is looked at once a turn, by the first request that asks (see
    /// ``FileCheckTurn``).
    func generation(in turn: FileCheckTurn? = nil) -> UInt64 {
        guard let turn else { return polledGeneration() }
        return turn.generation(polledGeneration)
    }

    private func polledGeneration() -> UInt64 {
        var query = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        if poll(&query, 1, 0) > 0 {
            state.withLock { state in
                changes.add(1, ordering: .sequentiallyConsistent)
                drain(&state)
            }
        }
        return changes.load(ordering: .sequentiallyConsistent)
    }

    private func drain(_ state: inout State) {
        // Large enough for many events at once; each read returns whole events only.
        withUnsafeTemporaryAllocation(byteCount: 4096, alignment: MemoryLayout<inotify_event>.alignment) { buffer in
            while true {
                let count = read(descriptor, buffer.baseAddress, buffer.count)
                guard count > 0 else { return }  // EAGAIN: the queue is empty
                var offset = 0
                while offset + MemoryLayout<inotify_event>.size <= count {
                    let event = buffer.baseAddress!.advanced(by: offset)
                    let watch = event.loadUnaligned(as: Int32.self)
                    let mask = event.loadUnaligned(fromByteOffset: 4, as: UInt32.self)
                    let nameLength = Int(event.loadUnaligned(fromByteOffset: 12, as: UInt32.self))
                    let header = MemoryLayout<inotify_event>.size
                    if mask & Self.selfEvents != 0 {
                        if mask & UInt32(IN_Q_OVERFLOW) == 0 {
                            // The directory went away or moved: its path may now name another one,
                            // so forget it, and watching the path again watches whatever is there.
                            if mask & UInt32(IN_MOVE_SELF) != 0 { inotify_rm_watch(descriptor, watch) }
                            state.watches = state.watches.filter { $0.value.watch != watch }
                            forgets.add(1, ordering: .sequentiallyConsistent)
                        }
                    }
                    offset += header + nameLength
                }
            }
        }
    }
}
#endif
