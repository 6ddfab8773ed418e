#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
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
    private struct Pending {
        let context: ChannelHandlerContext
        /// The socket's cork when it was corked for this flush, to be uncorked after it.
        let cork: SocketCork?
    }

    private var pending: [Pending] = []

    /// Flushes `context` at the end of this turn of its event loop; `uncorking`: the cork of
    /// its socket, corked for what this flush sends, to uncork right after it.
    func flushAtTurnEnd(_ context: ChannelHandlerContext, uncorking cork: SocketCork? = nil) {
        if pending.isEmpty {
            let flushes = NIOLoopBound(self, eventLoop: context.eventLoop)
            context.eventLoop.execute { flushes.value.flushAll() }
        }
        pending.append(Pending(context: context, cork: cork))
    }

    /// Flushes now what `channel` left for the end of the turn, if anything.
    func flushNow(_ channel: any Channel) {
        guard let index = pending.firstIndex(where: { $0.context.channel === channel }) else { return }
        Self.flush(pending.remove(at: index))
    }

    private func flushAll() {
        let flushes = pending
        pending.removeAll(keepingCapacity: true)
        for flush in flushes { Self.flush(flush) }
    }

    private static func flush(_ pending: Pending) {
        pending.context.flush()
        pending.cork?.uncork()
    }
}

/// `TCP_CORK`, held around one flush that sends a response head and then its body from a file:
/// the head goes out in the same segment as the body's first bytes rather than in one of its
/// own, as nginx sends with `tcp_nopush on`. Uncorking sends what is left at once.
///
/// Only where the file region starts on a page boundary (``worthCorking(fileOffset:)``); a writer
/// sends the bytes of a region starting inside a page up to the next one
/// (``pageBoundary(atOrAfter:)``) from memory with the head instead, uncorked. See
/// docs/ARCHITECTURE.md for why. Linux only: elsewhere nothing is corked.
///
/// One per connection, holding its channel's synchronous options: SwiftNIO makes them anew
/// each time they are asked for. A class: the options are an existential, which every copy of
/// a struct holding them would copy through generic value witnesses.
final class SocketCork {
    #if os(Linux)
    private static let option = ChannelOptions.Types.SocketOption(level: .tcp, name: .init(rawValue: CInt(TCP_CORK)))
    private static let pageSize = Int(sysconf(CInt(_SC_PAGESIZE)))
    private let options: (any NIOSynchronousChannelOptions)?
    #endif

    /// The cork of `channel`'s socket; call on its event loop.
    init(_ channel: any Channel) {
        #if os(Linux)
        options = channel.syncOptions
        #endif
    }

    /// Whether a file body from `fileOffset` is sent corked with its head.
    static func worthCorking(fileOffset: Int) -> Bool {
        #if os(Linux)
        return fileOffset % pageSize == 0
        #else
        return false
        #endif
    }

    /// The first page boundary at or after `offset` in a file (`offset` itself where corking
    /// does not apply).
    static func pageBoundary(atOrAfter offset: Int) -> Int {
        #if os(Linux)
        return (offset + pageSize - 1) / pageSize * pageSize
        #else
        return offset
        #endif
    }

    /// Corks the socket; `false` when it cannot be (not a TCP socket, or closed).
    func cork() -> Bool {
        #if os(Linux)
        // Through the optional in place: binding it copied the existential out.
        return (try? options?.setOption(Self.option, value: 1)) != nil
        #else
        return false
        #endif
    }

    /// Uncorks the socket, sending what it held.
    func uncork() {
        #if os(Linux)
        try? options?.setOption(Self.option, value: 0)
        #endif
    }
}
