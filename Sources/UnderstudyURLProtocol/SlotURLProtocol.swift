import Foundation
import Understudy
import UnderstudySupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The URL protocol for one registry slot: hands each request to an ``InProcessExchange``.
final class SlotURLProtocol<Tag: SlotTag>: URLProtocol {
    // Written in startLoading and read in stopLoading, which URLSession may call on other threads.
    private let loading = LockedState<Task<Void, Never>?>(nil)

    override class func canInit(with request: URLRequest) -> Bool {
        guard let scheme = request.url?.scheme?.lowercased(), scheme == "http" || scheme == "https" else { return false }
        return RegistrySlots.lookup(Tag.slot) != nil
    }

    override class func canonicalRequest(for request: URLRequest) -> URLRequest {
        request
    }

    override func startLoading() {
        guard let (registry, options) = RegistrySlots.lookup(Tag.slot) else {
            client?.urlProtocol(self, didFailWithError: URLError(.cancelled))
            return
        }
        #if canImport(FoundationNetworking)
        if task is URLSessionDownloadTask {
            // corelibs hands a download task only the file its own HTTP protocol writes: any
            // other protocol's download ends with no file (or, with a delegate, a crash). Fail
            // it clearly instead.
            client?.urlProtocol(self, didFailWithError: URLError(.cannotCreateFile, userInfo: [
                NSLocalizedDescriptionKey: Self.downloadTaskMessage
            ]))
            return
        }
        #endif
        let target: ClientChannel.Target = switch options.loadingSystem.callbacks {
        case .startingThread: .runLoop(UncheckedBox(RunLoop.current))
        case .workQueue: .queue(CorelibsWorkarounds.workQueue(of: task))
        }
        let channel = ClientChannel(instance: self, task: task.map(UncheckedBox.init), target: target, stopped: stopped)
        let cache = InProcessCache(task: task, request: request, cachedResponse: cachedResponse, storage: options.loadingSystem.cacheStorage)
        let exchange = InProcessExchange(registry: registry, options: options, channel: channel, cache: cache)
        let request = self.request
        loading.withLock { task in
            task = Task { await exchange.run(request) }
        }
    }

    override func stopLoading() {
        stopped.withLock { $0 = true }
        loading.withLock { $0?.cancel() }
    }

    private let stopped = LockedState(false)

    static var downloadTaskMessage: String {
        "Understudy cannot answer download tasks in-process on Linux: swift-corelibs-foundation gives a download task "
            + "only a file written by its own HTTP protocol. Use a data task, or serve the stubs with StubServer."
    }
}

/// The protocol's client, called in order where the loading system expects it (see
/// ``LoadingSystem/Callbacks``), never after `stopLoading`.
struct ClientChannel: @unchecked Sendable {
    /// Where the client is called.
    enum Target: Sendable {
        /// On a dispatch queue (corelibs: the task's work queue); `nil` on the loader's own
        /// thread, which is strictly sequential.
        case queue(DispatchQueue?)
        /// Through the run loop of the thread that called `startLoading` (Apple), which runs
        /// blocks in the order they were added.
        case runLoop(UncheckedBox<RunLoop>)
    }

    // URLProtocol is not Sendable; it is only touched on the target (or, without one, by the
    // strictly sequential loader).
    let instance: URLProtocol
    let task: UncheckedBox<URLSessionTask>?
    let target: Target
    let stopped: LockedState<Bool>
    /// Body bytes held back for tasks that take the body in one piece (see ``sendBody(_:)``).
    private let held = LockedState<(decided: Bool, incremental: Bool, data: Data)>((false, false, Data()))

    init(instance: URLProtocol, task: UncheckedBox<URLSessionTask>?, target: Target, stopped: LockedState<Bool>) {
        self.instance = instance
        self.task = task
        self.target = target
        self.stopped = stopped
    }

    /// Calls the client with `call` unless loading has stopped.
    func send(_ call: @escaping @Sendable (any URLProtocolClient, URLProtocol) -> Void) {
        let instance = UncheckedBox(instance)
        let stopped = stopped
        let work: @Sendable () -> Void = {
            guard !stopped.withLock({ $0 }), let client = instance.value.client else { return }
            call(client, instance.value)
        }
        switch target {
        case .queue(let queue?): queue.async(execute: work)
        case .queue(nil): work()
        case .runLoop(let runLoop): Self.perform(work, on: runLoop.value)
        }
    }

    /// Runs `work` on `runLoop`'s thread after what was added before it. A block added to a
    /// sleeping run loop waits for its next wake-up, so a timer due now wakes it (adding a
    /// timer is thread-safe in CoreFoundation, on Apple platforms and in corelibs alike).
    private static func perform(_ work: @escaping @Sendable () -> Void, on runLoop: RunLoop) {
        runLoop.perform(inModes: [.common], block: work)
        runLoop.add(Timer(timeInterval: 0, repeats: false) { _ in }, forMode: .common)
    }

    /// The request to follow after `response`, as the task's delegate decides (see
    /// ``CorelibsWorkarounds/redirectDecision(of:response:request:)``); `nil` when it refuses.
    func askDelegate(toRedirect response: HTTPURLResponse, to request: URLRequest) async -> URLRequest? {
        guard let task else { return request }
        return await CorelibsWorkarounds.redirectDecision(of: task.value, response: response, request: request)
    }

    /// Delivers a slice of the body.
    ///
    /// corelibs keeps only the last `didLoad` for tasks with a completion handler (and for the
    /// async `data(for:)`), so those get the whole body in one call at the end; tasks whose
    /// delegate receives data get each slice as it comes.
    func sendBody(_ slice: Data) {
        let held = held
        let task = task
        send { client, instance in
            let incremental = held.withLock { state -> Bool in
                if !state.decided {
                    state.incremental = task.map { CorelibsWorkarounds.deliversIncrementally($0.value) } ?? false
                    state.decided = true
                }
                if !state.incremental { state.data.append(slice) }
                return state.incremental
            }
            if incremental { client.urlProtocol(instance, didLoad: slice) }
        }
    }

    /// Delivers any held-back body, then ends the load.
    func endBody() {
        let held = held
        send { client, instance in
            let rest = held.withLock { state -> Data in
                defer { state.data = Data() }
                return state.data
            }
            if !rest.isEmpty { client.urlProtocol(instance, didLoad: rest) }
            client.urlProtocolDidFinishLoading(instance)
        }
    }
}

/// Carries a non-Sendable reference across a queue hop whose ordering makes it safe.
struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value

    init(_ value: Value) {
        self.value = value
    }
}
