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
        let channel = ClientChannel(instance: self, task: task.map(UncheckedBox.init), queue: Self.workQueue(of: task), stopped: stopped)
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
        return task.flatMap { reflectedChild($0, "workQueue") as? DispatchQueue }
        #else
        return nil
        #endif
    }
}

/// The protocol's client, called in order on the queue URLSession expects, never after
/// `stopLoading`.
struct ClientChannel: @unchecked Sendable {
    // URLProtocol is not Sendable; it is only touched on `queue` (or, without one, by the
    // strictly sequential loader).
    let instance: URLProtocol
    let task: UncheckedBox<URLSessionTask>?
    let queue: DispatchQueue?
    let stopped: LockedState<Bool>
    /// Body bytes held back for tasks that take the body in one piece (see ``sendBody(_:)``).
    private let held = LockedState<(decided: Bool, incremental: Bool, data: Data)>((false, false, Data()))

    init(instance: URLProtocol, task: UncheckedBox<URLSessionTask>?, queue: DispatchQueue?, stopped: LockedState<Bool>) {
        self.instance = instance
        self.task = task
        self.queue = queue
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
        if let queue { queue.async(execute: work) } else { work() }
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
                    state.incremental = task.map { Self.deliversIncrementally($0.value) } ?? false
                    state.decided = true
                }
                if !state.incremental { state.data.append(slice) }
                return state.incremental
            }
            if incremental { client.urlProtocol(instance, didLoad: slice) }
        }
    }

    /// Delivers any held-back body, then finishes.
    func finish() {
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

    /// Whether corelibs hands this task's data to a delegate as it arrives: its task registry
    /// says `callDelegate` rather than a completion handler. Read on the work queue, where corelibs
    /// itself reads it; when reflection finds nothing the body is held back, which is correct for
    /// every kind of task.
    private static func deliversIncrementally(_ task: URLSessionTask) -> Bool {
        #if canImport(FoundationNetworking)
        guard let session = reflectedChild(task, "session"),
              let registry = reflectedChild(session, "taskRegistry"),
              let behaviours = reflectedChild(registry, "behaviours") as? [Int: Any],
              let behaviour = behaviours[task.taskIdentifier]
        else { return false }
        return String(describing: behaviour) == "callDelegate"
        #else
        return true
        #endif
    }
}

/// A stored property found by reflection, looking through superclasses and unwrapping optionals.
func reflectedChild(_ value: Any, _ label: String) -> Any? {
    var mirror: Mirror? = Mirror(reflecting: value)
    while let current = mirror {
        if let found = current.children.first(where: { $0.label == label })?.value {
            let inner = Mirror(reflecting: found)
            return inner.displayStyle == .optional ? inner.children.first?.value : found
        }
        mirror = current.superclassMirror
    }
    return nil
}

/// Carries a non-Sendable reference across a queue hop whose ordering makes it safe.
struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value

    init(_ value: Value) {
        self.value = value
    }
}
