internal import NIOCore
import Understudy

extension FileCheckTurn {
    /// Runs `body`, a read's request work on `eventLoop`, sharing this turn's look at changed
    /// files; once the turn has looked, a task queued on the loop ends it. SwiftNIO runs the
    /// tasks queued during a turn before it waits for the next, so the next wake-up looks again.
    func sharing<T>(on eventLoop: any EventLoop, _ body: () throws -> T) rethrows -> T {
        let result = try sharing(body)
        if hasLooked, !endIsDue {
            endIsDue = true
            let turn = NIOLoopBound(self, eventLoop: eventLoop)
            eventLoop.execute { turn.value.end() }
        }
        return result
    }
}
