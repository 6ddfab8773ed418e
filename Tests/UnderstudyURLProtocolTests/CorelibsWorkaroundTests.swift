import Foundation
@testable import UnderstudyURLProtocol
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What `CorelibsWorkarounds` reaches by reflection is still where it looks: if a corelibs
/// update renames the task's work queue or the task registry's behaviours, these fail, instead
/// of the stubs silently losing their thread safety or their incremental delivery.
final class CorelibsWorkaroundTests: XCTestCase {
    #if canImport(FoundationNetworking)
    private final class Delegate: NSObject, URLSessionDataDelegate {}

    func testTheTaskWorkQueueIsFound() throws {
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        let task = session.dataTask(with: URL(string: "http://127.0.0.1:1/")!)
        XCTAssertNotNil(CorelibsWorkarounds.workQueue(of: task), "corelibs' URLSessionTask.workQueue moved")
    }

    func testTheTaskRegistryTellsDelegateTasksFromCompletionHandlerTasks() throws {
        let delegated = URLSession(configuration: .ephemeral, delegate: Delegate(), delegateQueue: nil)
        defer { delegated.invalidateAndCancel() }
        let streaming = delegated.dataTask(with: URL(string: "http://127.0.0.1:1/")!)
        let handled = delegated.dataTask(with: URL(string: "http://127.0.0.1:1/")!) { _, _, _ in }
        let queue = try XCTUnwrap(CorelibsWorkarounds.workQueue(of: streaming))
        queue.sync {
            XCTAssertTrue(CorelibsWorkarounds.deliversIncrementally(streaming), "a delegate's task gets its body as it arrives")
            XCTAssertFalse(CorelibsWorkarounds.deliversIncrementally(handled), "a completion handler's task gets it whole")
        }
        // And the reflection found the registry itself, not just a default: its behaviours are there.
        let registry = CorelibsWorkarounds.reflectedChild(try XCTUnwrap(CorelibsWorkarounds.reflectedChild(streaming, "session")), "taskRegistry")
        XCTAssertNotNil(registry.flatMap { CorelibsWorkarounds.reflectedChild($0, "behaviours") as? [Int: Any] }, "corelibs' task registry moved")
    }
    #endif
}
