import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A data task's delegate that records when each piece of the body reaches the client, for
/// checking that a throttled body arrives in slices over time rather than all at once.
final class ArrivalRecorder: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    /// Body bytes handed to the delegate at `time` (seconds since the task started).
    struct Arrival: Equatable {
        let time: TimeInterval
        let bytes: Int
    }

    private let lock = NSLock()
    private let start = Date()
    private var arrivals: [Arrival] = []
    private var status: Int?
    private var responseTime: TimeInterval?
    private var error: (any Error)?
    private var done = false
    private var continuation: CheckedContinuation<Void, Never>?

    /// Runs `request` on a session made from `configuration` with this recorder as its
    /// delegate; returns the status and the arrivals once the task has completed.
    static func load(_ request: URLRequest, configuration: URLSessionConfiguration) async -> (status: Int?, arrivals: [Arrival], error: (any Error)?) {
        let (status, _, arrivals, error) = await loadTimed(request, configuration: configuration)
        return (status, arrivals, error)
    }

    /// ``load(_:configuration:)``, with when the response's head reached the delegate (seconds
    /// since the task started): the time to first byte.
    static func loadTimed(
        _ request: URLRequest, configuration: URLSessionConfiguration
    ) async -> (status: Int?, responseTime: TimeInterval?, arrivals: [Arrival], error: (any Error)?) {
        let recorder = ArrivalRecorder()
        let session = URLSession(configuration: configuration, delegate: recorder, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        session.dataTask(with: request).resume()
        await recorder.wait()
        return recorder.lock.withLock { (recorder.status, recorder.responseTime, recorder.arrivals, recorder.error) }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let now = Date().timeIntervalSince(start)
        lock.withLock {
            status = (response as? HTTPURLResponse)?.statusCode
            responseTime = now
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let now = Date().timeIntervalSince(start)
        lock.withLock { arrivals.append(Arrival(time: now, bytes: data.count)) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let waiting: CheckedContinuation<Void, Never>? = lock.withLock {
            self.error = error
            done = true
            defer { continuation = nil }
            return continuation
        }
        waiting?.resume()
    }

    private func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let finished = lock.withLock { () -> Bool in
                if done { return true }
                self.continuation = continuation
                return false
            }
            if finished { continuation.resume() }
        }
    }
}
