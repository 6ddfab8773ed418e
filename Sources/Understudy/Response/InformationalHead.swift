import Foundation

/// A 1xx head sent before the final one: `103 Early Hints` with `Link: rel=preload`, as
/// servers send it for images.
public struct InformationalHead: Sendable, Hashable {
    /// The status, from 100 to 199 (101 is not one: it switches protocols).
    public let status: Int
    /// Its headers.
    public let headers: HeaderFields

    /// Creates a 1xx head.
    /// - Parameters:
    ///   - status: a status from 100 to 199 other than 101.
    ///   - headers: its headers, such as `Link: </hero.avif>; rel=preload; as=image`.
    public init(status: Int, headers: HeaderFields = [:]) {
        precondition((100...199).contains(status) && status != 101, "an informational head's status must be 1xx other than 101, not \(status)")
        self.status = status
        self.headers = headers
    }
}
