internal import NIOCore
import Understudy

extension FileCheckTurn {
    /// Ends this turn's look at changed files once `eventLoop`'s turn is over, when a request
    /// of the turn looked. SwiftNIO runs the tasks queued during a turn before it waits for the
    /// next, so the next wake-up looks again.
    func endWithTurn(of eventLoop: any EventLoop) {
        guard hasLooked, !endIsDue else { return }
        endIsDue = true
        let turn = NIOLoopBound(self, eventLoop: eventLoop)
        eventLoop.execute { turn.value.end() }
    }
}
