import Foundation
import Understudy
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The URL protocol for one registry slot: hands each request to a ``StubLoader``.
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
        let channel = ClientChannel(instance: self, queue: Self.workQueue(of: task), stopped: stopped)
        let loader = StubLoader(registry: registry, options: options, channel: channel)
        let request = self.request
        loading.withLock { task in
            task = Task { await loader.run(request) }
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

    /// The queue corelibs runs a task's work on, found by reflection.
    ///
    /// corelibs reads its unsynchronised task registry whenever a protocol calls its client, and
    /// changes that registry on the session's work queue: calls from any other thread race with
    /// it and crash under load. The queue is not public, so the loader reaches it through
    /// `Mirror`; if a future corelibs renames it, calls fall back to the caller's thread.
    private static func workQueue(of task: URLSessionTask?) -> DispatchQueue? {
        #if canImport(FoundationNetworking)
        var mirror: Mirror? = task.map { Mirror(reflecting: $0) }
        while let current = mirror {
            if let queue = current.children.first(where: { $0.label == "workQueue" })?.value as? DispatchQueue {
                return queue
            }
            mirror = current.superclassMirror
        }
        #endif
        return nil
    }
}

/// The protocol's client, called in order on the queue URLSession expects, never after
/// `stopLoading`.
struct ClientChannel: @unchecked Sendable {
    // URLProtocol is not Sendable; it is only touched on `queue` (or, without one, by the
    // strictly sequential loader).
    let instance: URLProtocol
    let queue: DispatchQueue?
    let stopped: LockedState<Bool>

    /// Calls the client with `call` unless loading has stopped.
    func send(_ call: @escaping @Sendable (any URLProtocolClient, URLProtocol) -> Void) {
        let instance = UncheckedBox(instance)
        let stopped = stopped
        let work: @Sendable () -> Void = {
            guard !stopped.withLock({ $0 }), let client = instance.value.client else { return }
            call(client, instance.value)
        }
        if let queue { queue.async(execute: work) } else { work() }
    }
}

/// Carries a non-Sendable reference across a queue hop whose ordering makes it safe.
struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value

    init(_ value: Value) {
        self.value = value
    }
}
