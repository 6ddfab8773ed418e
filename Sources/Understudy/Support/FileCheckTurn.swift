import Foundation

/// One look at the queue of file changes, shared by the requests an event loop reads in one
/// turn (one wake-up from its wait for sockets).
///
/// Every answer from a `file` stub asks whether files changed since its rendering was kept: on
/// Linux a `poll(2)` of an inotify queue each time, a system call per request where a busy
/// loop reads many requests in one turn and one would do for them all. The server keeps one
/// of these per event loop and passes it to each decision it makes on that loop
/// (``StubResponder/decide(_:keepingRepeat:repeatable:fileCheck:)``): the first look of the
/// turn is kept for the rest, until the loop calls ``end()`` from a task queued for once the
/// turn's work is done, before it waits again.
///
/// Requests sent after a change are answered as fresh as with a look each: the turn began when
/// the loop woke for them, after everything their clients did before sending them, and the
/// first look comes later still. The exception is a pipelining client that edits a file
/// between two requests it sends without waiting, when both arrive in one read.
package final class FileCheckTurn {
    /// The file-change generation seen this turn, once looked at.
    private var generation: UInt64?
    /// Whether an ``end()`` is on its way (the server sets it when it queues one).
    package var endIsDue = false

    package init() {}

    /// Whether this turn has looked at the queue, and must be ended before the loop waits again.
    package var hasLooked: Bool { generation != nil }

    /// Forgets this turn's look: the next request looks again.
    package func end() {
        generation = nil
        endIsDue = false
    }

    /// This turn's generation: the one seen by its first look, made by `look`.
    func generation(_ look: () -> UInt64) -> UInt64 {
        if let generation { return generation }
        let seen = look()
        generation = seen
        return seen
    }
}
