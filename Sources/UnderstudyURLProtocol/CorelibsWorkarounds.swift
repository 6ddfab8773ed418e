import Foundation
import Understudy
import UnderstudySupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where Understudy works around swift-corelibs-foundation, in one place: what it reaches by
/// reflection (the task's work queue, the task registry's delivery behaviour) and the registry
/// slots that give each registry its own protocol class. `CorelibsWorkaroundTests` fails if a
/// corelibs update moves what the reflection looks for.
enum CorelibsWorkarounds {
    /// The queue corelibs runs a task's work on, found by reflection.
    ///
    /// corelibs reads its unsynchronised task registry whenever a protocol calls its client, and
    /// changes that registry on the session's work queue: calls from any other thread race with
    /// it and crash under load. The queue is not public, so the loader reaches it through
    /// `Mirror`; if a future corelibs renames it, calls fall back to the caller's thread.
    static func workQueue(of task: URLSessionTask?) -> DispatchQueue? {
        #if canImport(FoundationNetworking)
        return task.flatMap { reflectedChild($0, "workQueue") as? DispatchQueue }
        #else
        return nil
        #endif
    }

    /// Whether corelibs hands this task's data to a delegate as it arrives: its task registry
    /// says `callDelegate` rather than a completion handler. Read on the work queue, where corelibs
    /// itself reads it; when reflection finds nothing the body is held back, which is correct for
    /// every kind of task.
    static func deliversIncrementally(_ task: URLSessionTask) -> Bool {
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

    /// What the task's session delegate makes of a redirect, asked on the session's delegate
    /// queue as corelibs' own HTTP protocol asks it: the request to follow (`request`, or one
    /// the delegate changed), or `nil` when it refuses. A session without a delegate follows.
    static func redirectDecision(of task: URLSessionTask, response: HTTPURLResponse, request: URLRequest) async -> URLRequest? {
        guard let session = reflectedChild(task, "session") as? URLSession,
              let delegate = session.delegate as? URLSessionTaskDelegate
        else { return request }
        let parts = UncheckedBox((session, delegate, task, response))
        return await withCheckedContinuation { continuation in
            session.delegateQueue.addOperation {
                let (session, delegate, task, response) = parts.value
                delegate.urlSession(session, task: task, willPerformHTTPRedirection: response, newRequest: request) { decided in
                    continuation.resume(returning: decided)
                }
            }
        }
    }

    /// A stored property found by reflection, looking through superclasses and unwrapping optionals.
    static func reflectedChild(_ value: Any, _ label: String) -> Any? {
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
}

/// A type-level number: `Slot0`, `NextSlot<Slot0>`, ... Each gives a distinct protocol class.
protocol SlotTag {
    static var slot: Int { get }
}

enum Slot0: SlotTag {
    static var slot: Int { 0 }
}

enum NextSlot<Previous: SlotTag>: SlotTag {
    static var slot: Int { Previous.slot + 1 }
}

/// Gives every live registry its own `URLProtocol` class.
///
/// `URLSessionConfiguration.protocolClasses` holds classes, not instances, and corelibs does not
/// show a protocol the session's configuration or its `httpAdditionalHeaders`, so a class is the
/// only thing that can carry "which registry" to the protocol. Each slot is a specialisation of
/// a generic protocol class; a slot is reused once its registry is gone, so the number of
/// classes stays at the number of registries alive at once.
enum RegistrySlots {
    private struct Slot {
        weak var registry: StubRegistry?
        let options: StubbingOptions
        let protocolClass: URLProtocol.Type
    }

    private static let slots = LockedState<[Slot]>([])

    /// The protocol class serving `registry` with `options`.
    static func protocolClass(for registry: StubRegistry, options: StubbingOptions) -> URLProtocol.Type {
        slots.withLock { slots in
            if let index = slots.firstIndex(where: { $0.registry === registry && $0.options == options }) {
                return slots[index].protocolClass
            }
            if let free = slots.firstIndex(where: { $0.registry == nil }) {
                slots[free] = Slot(registry: registry, options: options, protocolClass: slots[free].protocolClass)
                return slots[free].protocolClass
            }
            let made = makeProtocolClass(slot: slots.count)
            slots.append(Slot(registry: registry, options: options, protocolClass: made))
            return made
        }
    }

    /// The registry and options behind slot `index`, while the registry lives.
    static func lookup(_ index: Int) -> (StubRegistry, StubbingOptions)? {
        slots.withLock { slots in
            guard slots.indices.contains(index), let registry = slots[index].registry else { return nil }
            return (registry, slots[index].options)
        }
    }

    private static func makeProtocolClass(slot: Int) -> URLProtocol.Type {
        var tag: any SlotTag.Type = Slot0.self
        for _ in 0..<slot {
            tag = successor(of: tag)
        }
        return protocolClass(tag)
    }

    private static func successor<T: SlotTag>(of _: T.Type) -> any SlotTag.Type {
        NextSlot<T>.self
    }

    private static func protocolClass<T: SlotTag>(_: T.Type) -> URLProtocol.Type {
        SlotURLProtocol<T>.self
    }
}
