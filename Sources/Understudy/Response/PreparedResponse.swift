import Foundation
import UnderstudySupport
import UnderstudyImages

/// A response ready to deliver: what both transports execute, so a stub behaves the same
/// in-process and over the wire.
package struct PreparedResponse: Sendable {
    /// The status code.
    package var status: Int {
        get { storage.value.status }
        set { writable.value.status = newValue }
    }
    /// Every header to send, Content-Type and Content-Length included.
    package var headers: HeaderFields {
        get { storage.value.headers }
        set { writable.value.headers = newValue }
    }
    /// The whole body (for HEAD, still the GET body: transports send none of it).
    package var body: Data {
        get { storage.value.body }
        set { writable.value.body = newValue }
    }
    /// How long to wait before the headers or the fault.
    package var delay: Duration {
        get { storage.value.delay }
        set { writable.value.delay = newValue }
    }
    /// The pace of the body, if limited.
    package var bandwidth: Bandwidth? {
        get { storage.value.bandwidth }
        set { writable.value.bandwidth = newValue }
    }
    /// Body bytes to send before dropping the connection, if set.
    package var truncateAfter: Int? {
        get { storage.value.truncateAfter }
        set { writable.value.truncateAfter = newValue }
    }
    /// The fault to inject instead of the response, if any.
    package var fault: Fault? {
        get { storage.value.fault }
        set { writable.value.fault = newValue }
    }
    /// The name of the stub that produced it; `nil` for unmatched and pass-through answers.
    package var stubName: String? {
        get { storage.value.stubName }
        set { writable.value.stubName = newValue }
    }
    /// Set when the registry reuses this rendering for every use of its stub (see
    /// `RenderCache`), so a transport may keep its own encoding of it under this key.
    package var renderID: UInt64? {
        get { storage.value.renderID }
        set { writable.value.renderID = newValue }
    }
    /// The file the body is, byte for byte, as it was when read (set with ``renderID`` for a
    /// `file` response): a transport may send the file itself (`sendfile(2)`) instead of
    /// copying the bytes, once it has checked that what it opened is still that version.
    package var sourceFile: SourceFile? {
        get { storage.value.sourceFile }
        set { writable.value.sourceFile = newValue }
    }
    /// Whether `If-None-Match` and `If-Modified-Since` may be answered 304 (see ``CachePolicy``).
    package var answersConditionals: Bool {
        get { storage.value.answersConditionals }
        set { writable.value.answersConditionals = newValue }
    }
    /// Whether `Range` is honoured: 206, multipart and 416 (see ``StubResponse/ranges(_:)``).
    package var acceptsRanges: Bool {
        get { storage.value.acceptsRanges }
        set { writable.value.acceptsRanges = newValue }
    }
    /// `Last-Modified` as a date, read once when rendering.
    package var lastModified: Date? {
        get { storage.value.lastModified }
        set { writable.value.lastModified = newValue }
    }
    /// Where the body stops until a gate opens, if it does.
    package var pause: BodyPause? {
        get { storage.value.pause }
        set { writable.value.pause = newValue }
    }
    /// The network profile the timing came from, if one applied (journaled with the entry).
    package var network: NetworkProfile? {
        get { storage.value.network }
        set { writable.value.network = newValue }
    }
    /// Whether ``delay`` and ``bandwidth`` are the stub's own (`delay`, `bandwidth`), which win
    /// over any network profile (``ownsBandwidth`` for the rate).
    package var ownsDelay: Bool {
        get { storage.value.ownsDelay }
        set { writable.value.ownsDelay = newValue }
    }
    package var ownsBandwidth: Bool {
        get { storage.value.ownsBandwidth }
        set { writable.value.ownsBandwidth = newValue }
    }
    /// Where the body is cut into pieces, if it is (see ``BodyPieces``).
    package var pieces: Pieces? {
        get { storage.value.pieces }
        set { writable.value.pieces = newValue }
    }
    /// The 304 and 206 answers made from this rendering, kept with it (see ``ResponseVariants``).
    package var variants: ResponseVariants? {
        get { storage.value.variants }
        set { writable.value.variants = newValue }
    }

    /// How long to wait between the head and the body (MockWebServer's `bodyDelay`).
    package var bodyDelay: Duration {
        get { storage.value.bodyDelay }
        set { writable.value.bodyDelay = newValue }
    }
    /// The 1xx heads sent before the final one, in order.
    package var informational: [InformationalHead] {
        get { storage.value.informational }
        set { writable.value.informational = newValue }
    }
    /// What the stub leaves to chance, drawn per request by ``StubResponder`` (then `nil`).
    package var chances: ResponseChances? {
        get { storage.value.chances }
        set { writable.value.chances = newValue }
    }
    /// What the draws for this request applied, for the journal.
    package var drawn: Set<ChanceTarget> {
        get { storage.value.drawn }
        set { writable.value.drawn = newValue }
    }

    /// Where the request left the answering stub's scenario, for the journal.
    package var scenarioStep: ScenarioStep? {
        get { storage.value.scenarioStep }
        set { writable.value.scenarioStep = newValue }
    }

    /// The fields, behind one ``CopyOnWriteBox``: a rendering is handed from the registry's
    /// cache to the responder, its decision, the answer and the delivery plan.
    private struct Fields: Sendable {
        var status: Int
        var headers: HeaderFields
        var body: Data
        var delay: Duration
        var bandwidth: Bandwidth?
        var truncateAfter: Int?
        var fault: Fault?
        var stubName: String?
        var renderID: UInt64?
        var sourceFile: SourceFile?
        var answersConditionals = false
        var acceptsRanges = false
        var lastModified: Date?
        var pause: BodyPause?
        var network: NetworkProfile?
        var ownsDelay = false
        var ownsBandwidth = false
        var pieces: Pieces?
        var variants: ResponseVariants?
        var scenarioStep: ScenarioStep?
        var bodyDelay: Duration = .zero
        var informational: [InformationalHead] = []
        var chances: ResponseChances?
        var drawn: Set<ChanceTarget> = []
    }

    private var storage: CopyOnWriteBox<Fields>

    /// The fields to change, copied first if another response shares them.
    private var writable: CopyOnWriteBox<Fields> {
        mutating get { CopyOnWriteBox.unique(&storage) }
    }

    /// A file and its stamp when it was read.
    package struct SourceFile: Sendable {
        /// Its path.
        package let path: String
        /// Its size, modification time and inode then.
        package let stamp: FileStamp
        /// Where in the file the body starts (a range's first byte).
        package var offset = 0

        package init(path: String, stamp: FileStamp, offset: Int = 0) {
            self.path = path
            self.stamp = stamp
            self.offset = offset
        }
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
        storage = CopyOnWriteBox(Fields(
            status: status, headers: headers, body: body, delay: delay, bandwidth: bandwidth, truncateAfter: truncateAfter,
            fault: fault, stubName: stubName
        ))
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

    /// The steps that deliver this response, for a request of `method` whose body was
    /// `requestBodyBytes` long (which decides ``Fault/disconnectDuringRequestBody(after:)``).
    package func deliveryPlan(method: String, requestBodyBytes: Int = 0) -> DeliveryPlan {
        DeliveryPlan(response: self, sendsBody: method != "HEAD" && !Self.hasNoBody(status: status), requestBodyBytes: requestBodyBytes)
    }

    /// Whether a response of `status` has no body, and so no `Content-Length` or
    /// `Transfer-Encoding` either: 1xx, 204 and 304. The one statement of
    /// the rule, which every transport's framing and every delivery plan follow.
    package static func hasNoBody(status: Int) -> Bool {
        status == 204 || status == 304 || (100...199).contains(status)
    }
}
