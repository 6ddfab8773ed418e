import Foundation
import Understudy
import UnderstudyURLProtocol
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Collects what a data task's delegate sees: the response, each chunk with its arrival time,
/// and the final error.
final class TaskRecorder: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    struct Chunk {
        let bytes: Int
        let at: Date
    }

    private let lock = NSLock()
    private var _response: URLResponse?
    private var _chunks: [Chunk] = []
    private var _data = Data()
    private var _error: (any Error)?
    private var continuation: CheckedContinuation<Void, Never>?
    private var done = false

    var response: HTTPURLResponse? { lock.withLock { _response as? HTTPURLResponse } }
    var chunks: [Chunk] { lock.withLock { _chunks } }
    var data: Data { lock.withLock { _data } }
    var error: URLError? { lock.withLock { _error as? URLError } }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse, completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        lock.withLock { _response = response }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        lock.withLock {
            _chunks.append(Chunk(bytes: data.count, at: Date()))
            _data.append(data)
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let waiting: CheckedContinuation<Void, Never>? = lock.withLock {
            _error = error
            done = true
            defer { continuation = nil }
            return continuation
        }
        waiting?.resume()
    }

    func wait() async {
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

extension XCTestCase {
    /// Runs `request` as a delegate-driven data task on a session stubbed by `stubs`.
    func record(_ request: URLRequest, stubs: StubRegistry, unmatched: UnmatchedPolicy = .fail) async -> TaskRecorder {
        let recorder = TaskRecorder()
        let session = URLSession(configuration: .stubbed(by: stubs, unmatched: unmatched), delegate: recorder, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        session.dataTask(with: request).resume()
        await recorder.wait()
        return recorder
    }

    /// A completion-handler data task, bridged for tests.
    func completionDataTask(_ session: URLSession, _ request: URLRequest) async -> (Data?, HTTPURLResponse?, URLError?) {
        await withCheckedContinuation { continuation in
            session.dataTask(with: request) { data, response, error in
                continuation.resume(returning: (data, response as? HTTPURLResponse, error as? URLError))
            }.resume()
        }
    }
}

func url(_ string: String) -> URL {
    URL(string: string)!
}
