import Foundation
import UnderstudyImages

/// A response ready to deliver: what both transports execute, so a stub behaves the same
/// in-process and over the wire.
package struct PreparedResponse: Sendable {
    /// The status code.
    package var status: Int
    /// Every header to send, Content-Type and Content-Length included.
    package var headers: HeaderFields
    /// The whole body (for HEAD, still the GET body: transports send none of it).
    package var body: Data
    /// How long to wait before the headers or the fault.
    package var delay: Duration
    /// The pace of the body, if limited.
    package var bandwidth: Bandwidth?
    /// Body bytes to send before dropping the connection, if set.
    package var truncateAfter: Int?
    /// The fault to inject instead of the response, if any.
    package var fault: Fault?
    /// The name of the stub that produced it; `nil` for unmatched and pass-through answers.
    package var stubName: String?
    /// Set when the registry reuses this rendering for every use of its stub (see
    /// `RenderCache`), so a transport may keep its own encoding of it under this key.
    package var renderID: UInt64?
    /// The file the body is, byte for byte, as it was when read (set with ``renderID`` for a
    /// `file` response): a transport may send the file itself (`sendfile(2)`) instead of
    /// copying the bytes, once it has checked that what it opened is still that version.
    package var sourceFile: SourceFile?
    /// Whether `If-None-Match` and `If-Modified-Since` may be answered 304 (see ``CachePolicy``).
    package var answersConditionals = false
    /// Whether `Range` is honoured: 206, multipart and 416 (see ``StubResponse/ranges(_:)``).
    package var acceptsRanges = false
    /// `Last-Modified` as a date, read once when rendering.
    package var lastModified: Date?
    /// Where the body stops until a gate opens, if it does.
    package var pause: BodyPause?
    /// The network profile the timing came from, if one applied (journaled with the entry).
    package var network: NetworkProfile?
    /// Whether ``delay`` and ``bandwidth`` are the stub's own (`delay`, `bandwidth`), which win
    /// over any network profile.
    package var ownsDelay = false
    package var ownsBandwidth = false
    /// Where the body is cut into pieces, if it is (see ``BodyPieces``).
    package var pieces: Pieces?
    /// The 304 and 206 answers made from this rendering, kept with it (see ``ResponseVariants``).
    package var variants: ResponseVariants?

    /// A file and its stamp when it was read.
    package struct SourceFile: Sendable {
        /// Its path.
        package let path: String
        /// Its size, modification time and inode then.
        package let stamp: FileStamp
        /// Where in the file the body starts (a range's first byte).
        package var offset = 0
    }

    /// Creates a prepared response.
    package init(
        status: Int,
        headers: HeaderFields = [:],
        body: Data = Data(),
        delay: Duration = .zero,
        bandwidth: Bandwidth? = nil,
        truncateAfter: Int? = nil,
        fault: Fault? = nil,
        stubName: String? = nil
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.delay = delay
        self.bandwidth = bandwidth
        self.truncateAfter = truncateAfter
        self.fault = fault
        self.stubName = stubName
    }

    /// Whether this is a redirect a client would follow: 301, 302, 303, 307 or 308 with a Location.
    package var isFollowableRedirect: Bool {
        [301, 302, 303, 307, 308].contains(status) && headers["Location"] != nil
    }

    /// The same response delivered on `profile` (the server's or session's network), unless the
    /// stub chose its own profile: the profile's latency and rate replace what the stub did not
    /// set itself.
    package func delivered(on profile: NetworkProfile?) -> PreparedResponse {
        guard let profile, network == nil else { return self }
        var copy = self
        copy.network = profile
        if !ownsDelay { copy.delay = profile.latency }
        if !ownsBandwidth { copy.bandwidth = profile.rate }
        return copy
    }

    /// The steps that deliver this response, for a request of `method`.
    package func deliveryPlan(method: String) -> DeliveryPlan {
        DeliveryPlan(response: self, sendsBody: method != "HEAD" && !(100...199).contains(status) && status != 204 && status != 304)
    }
}
