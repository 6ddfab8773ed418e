/// Which part of a client a hazard tests: the four groups of SPEC 20's catalogue.
public enum HazardGroup: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The decoded pixels: orientation, colour spaces, PNG layouts. An expected image is given.
    case pixels
    /// What a decoder allocates: declared sizes, heavy animations, metadata.
    case memory
    /// What the response's status and headers say about the bytes.
    case headers
    /// What a client's cache keeps across requests.
    case cache

    /// The group's name, as the catalogue JSON gives it.
    public var description: String { rawValue }
}
