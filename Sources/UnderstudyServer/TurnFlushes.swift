internal import NIOCore

/// The flushes of one event loop's turn, made together at its end: the responses a turn
/// answers on many connections leave one after another, and a client's thread asleep in
/// `epoll_wait` is woken once for them rather than once for each.
///
/// Waking the client's thread is the costliest part of a small response's `write(2)` on a
/// machine where that takes an interrupt between CPUs: batching the flushes pays it about once
/// per turn for each client thread instead of once per response.
///
/// SwiftNIO runs the tasks queued during a turn before it waits for the next, so a response
/// waits at most for the rest of its turn's reads. A connection whose input may have ended
/// flushes at once instead (``InputEndFlush``): SwiftNIO closes a channel at the end of its
/// input in the same turn, and fails the writes not flushed by then.
final class TurnFlushes {
    private var pending: [ChannelHandlerContext] = []

    /// Flushes `context` at the end of this turn of its event loop.
    func flushAtTurnEnd(_ context: ChannelHandlerContext) {
        if pending.isEmpty {
            let flushes = NIOLoopBound(self, eventLoop: context.eventLoop)
            context.eventLoop.execute { flushes.value.flushAll() }
        }
        pending.append(context)
    }

    /// Flushes now what `channel` left for the end of the turn, if anything.
    func flushNow(_ channel: any Channel) {
        guard let index = pending.firstIndex(where: { $0.channel === channel }) else { return }
        pending.remove(at: index).flush()
    }

    private func flushAll() {
        let contexts = pending
        pending.removeAll(keepingCapacity: true)
        for context in contexts { context.flush() }
    }
}
