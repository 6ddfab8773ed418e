internal import NIOCore
internal import NIOPosix
import Understudy

/// The event loops every server in the process runs on: as many threads as SwiftNIO's
/// singleton group, whose loops mark the end of each turn for the file-change check (see
/// `FileChangeMonitor.generation()`), so that requests read in one turn share one look at
/// the queue of file changes instead of a `poll(2)` each.
enum ServerEventLoops {
    /// The group, created on first use and never shut down (as the singleton is not).
    static let group: MultiThreadedEventLoopGroup = MultiThreadedEventLoopGroup(
        numberOfThreads: System.coreCount, metricsDelegate: TurnMarker()
    )

    /// Called by each loop on its own thread after every turn, before it waits for the next.
    private struct TurnMarker: NIOEventLoopMetricsDelegate {
        func processedTick(info: NIOEventLoopTickInfo) {
            #if canImport(Glibc)
            FileChangeMonitor.loopTurnEnded()
            #endif
        }
    }
}
