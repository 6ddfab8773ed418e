import Foundation
import Understudy
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

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
