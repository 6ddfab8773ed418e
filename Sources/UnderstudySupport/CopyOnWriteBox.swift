/// A value behind one reference, for a struct that is copied far more often than changed (a
/// stub's response, handed to every request it answers; a rendering, handed from the registry's
/// cache through the responder to delivery): copying the struct is one retain instead of one
/// per field, and changing it copies the value first when another copy shares the box.
public final class CopyOnWriteBox<Value> {
    /// The value boxed.
    public var value: Value

    /// Boxes `value`.
    public init(_ value: Value) {
        self.value = value
    }

    /// `box`, replaced first by a box of its own when another copy shares it: what a setter
    /// writes into.
    public static func unique(_ box: inout CopyOnWriteBox<Value>) -> CopyOnWriteBox<Value> {
        if !isKnownUniquelyReferenced(&box) { box = CopyOnWriteBox(box.value) }
        return box
    }
}

// Changed only through `unique(_:)`, while one copy alone holds it.
extension CopyOnWriteBox: @unchecked Sendable where Value: Sendable {}
