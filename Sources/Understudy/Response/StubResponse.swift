import Foundation
import UnderstudySupport
import UnderstudyImages

/// What a stub answers: a body of some kind, a status and headers, and how it is delivered.
///
/// ```swift
/// .file(catPNG)
/// .json(["id": 7]).status(201)
/// .redirect(to: "/new.png", status: 301)
/// .failure(.connectionReset)
/// .file(bigPNG).delayed(by: .milliseconds(200)).throttled(to: .edge)
/// .file(bigPNG).truncated(after: 1024)
/// .image(.file(catWebP), as: .png)
/// .image(.generated(width: 64, height: 64, pattern: .checkerboard), as: .negotiated)
/// .image(.file(photo), as: .jpeg(quality: 85), resize: .init(width: .query("w")))
/// .forward(to: upstream, transcode: .png)
/// ```
public struct StubResponse: Sendable {
    /// Where the body comes from.
    enum Body: Sendable {
        case empty
        case data(Data, contentType: String?)
        case json(JSONValue)
        case file(URL)
        case redirect(to: String)
        case failure(Fault)
        case image(ImageSource, as: ServedImageFormat, options: ImageOptions)
        /// Forwarded upstream, with headers added to (or replacing those of) the request.
        case forward(to: URL?, adding: HeaderFields)
    }

    /// Where the body comes from.
    var body: Body {
        get { storage.value.body }
        set { writable.value.body = newValue }
    }
    /// The status code; for redirects the 3xx given.
    public private(set) var statusCode: Int {
        get { storage.value.statusCode }
        set { writable.value.statusCode = newValue }
    }
    /// Headers that override the ones Understudy would set.
    public private(set) var headers: HeaderFields {
        get { storage.value.headers }
        set { writable.value.headers = newValue }
    }
    /// The delay before the headers, if any.
    public internal(set) var delay: Delay? {
        get { storage.value.delay }
        set { writable.value.delay = newValue }
    }
    /// The bandwidth limit on the body, if any.
    public private(set) var bandwidth: Bandwidth? {
        get { storage.value.bandwidth }
        set { writable.value.bandwidth = newValue }
    }
    /// The number of body bytes sent before the connection drops, if set.
    public private(set) var truncateAfter: Int? {
        get { storage.value.truncateAfter }
        set { writable.value.truncateAfter = newValue }
    }
    /// The format a canned or forwarded image body is converted to, if any (see ``transcoded(to:)``).
    public private(set) var transcode: ServedImageFormat? {
        get { storage.value.transcode }
        set { writable.value.transcode = newValue }
    }
    /// Whether rendering adds the Content-Type the body implies (see ``withoutInferredContentType()``).
    private(set) var infersContentType: Bool {
        get { storage.value.infersContentType }
        set { writable.value.infersContentType = newValue }
    }
    /// The validators and `Cache-Control` set with ``cache(_:)``; `nil` for the default: on for
    /// file, data and image bodies (``CachePolicy/standard``), off for others.
    public internal(set) var cachePolicy: CachePolicy? {
        get { storage.value.cachePolicy }
        set { writable.value.cachePolicy = newValue }
    }
    /// Whether `Range` requests are honoured, as set with ``ranges(_:)``; `nil` for the default:
    /// on for file, data and image bodies, off for others.
    public internal(set) var rangesEnabled: Bool? {
        get { storage.value.rangesEnabled }
        set { writable.value.rangesEnabled = newValue }
    }
    /// Where the body stops until a gate opens, if set with ``paused(afterBytes:gate:)``.
    public internal(set) var pause: BodyPause? {
        get { storage.value.pause }
        set { writable.value.pause = newValue }
    }
    /// The network the response is delivered on, if set with ``network(_:)``.
    public internal(set) var network: NetworkProfile? {
        get { storage.value.network }
        set { writable.value.network = newValue }
    }
    /// How the body is cut into pieces, if set with ``inPieces(_:interval:)``.
    public internal(set) var pieces: BodyPieces? {
        get { storage.value.pieces }
        set { writable.value.pieces = newValue }
    }
    /// The phase fault set with ``faulted(_:chance:)`` (with a chance: in ``chances`` instead).
    var phaseFault: Fault? {
        get { storage.value.phaseFault }
        set { writable.value.phaseFault = newValue }
    }
    /// The wait between head and body, set with ``bodyDelayed(by:)``.
    public internal(set) var bodyDelay: Duration? {
        get { storage.value.bodyDelay }
        set { writable.value.bodyDelay = newValue }
    }
    /// The 1xx heads sent before the final one, set with ``informational(_:)``.
    public internal(set) var informationalHeads: [InformationalHead] {
        get { storage.value.informational }
        set { writable.value.informational = newValue }
    }
    /// How it answers `Expect: 100-continue`, set with ``expectContinue(_:)``; `nil` for a
    /// `100 Continue`.
    public internal(set) var expectContinuePolicy: ExpectContinue? {
        get { storage.value.expectContinue }
        set { writable.value.expectContinue = newValue }
    }
    /// What is left to chance, set by the modifiers that take a `chance`.
    var chances: ResponseChances {
        get { storage.value.chances }
        set { writable.value.chances = newValue }
    }
    /// The content coding ``encoded(_:labelled:)`` wraps the body in, if any.
    var contentCoding: (coding: ContentCoding, labelled: Bool)? {
        get { storage.value.contentCoding }
        set { writable.value.contentCoding = newValue }
    }
    /// The hazard the registry answers for, at match time, when this response stands for a
    /// stateful one (a cache hazard, or `negotiated-without-vary`).
    var statefulHazard: Hazard? {
        get { storage.value.statefulHazard }
        set { writable.value.statefulHazard = newValue }
    }
    /// When this response was made (for a registered response or a stub file's, when it was
    /// loaded): the `Last-Modified` of bodies not read from a file.
    var madeAt: Date { storage.value.madeAt }

    /// The fields, behind one ``CopyOnWriteBox``: the registry hands a stub's response to every
    /// request it answers, which then copies one reference rather than each field.
    private struct Fields: Sendable {
        var body: Body
        var statusCode: Int
        var headers: HeaderFields = [:]
        var delay: Delay?
        var bandwidth: Bandwidth?
        var truncateAfter: Int?
        var transcode: ServedImageFormat?
        var infersContentType = true
        var cachePolicy: CachePolicy?
        var rangesEnabled: Bool?
        var pause: BodyPause?
        var network: NetworkProfile?
        var pieces: BodyPieces?
        /// A hazard whose answer depends on the request or on its URL's earlier requests,
        /// chosen by the registry when it matches (see ``hazard(_:)``).
        var statefulHazard: Hazard?
        /// The content coding the body is wrapped in, and whether `Content-Encoding` says so.
        var contentCoding: (coding: ContentCoding, labelled: Bool)?
        var phaseFault: Fault?
        var bodyDelay: Duration?
        var informational: [InformationalHead] = []
        var expectContinue: ExpectContinue?
        var chances = ResponseChances()
        let madeAt = Date()
    }

    private var storage: CopyOnWriteBox<Fields>

    /// The fields to change, copied first if another response shares them.
    private var writable: CopyOnWriteBox<Fields> {
        mutating get { CopyOnWriteBox.unique(&storage) }
    }

    init(body: Body, status: Int = 200) {
        storage = CopyOnWriteBox(Fields(body: body, statusCode: status))
    }

    // MARK: - Kinds

    /// An empty body with this status: `.status(404)`.
    public static func status(_ code: Int) -> StubResponse {
        StubResponse(body: .empty, status: code)
    }

    /// These bytes; Content-Type from `contentType`, else sniffed from image signatures,
    /// else `application/octet-stream`.
    public static func data(_ data: Data, contentType: String? = nil) -> StubResponse {
        StubResponse(body: .data(data, contentType: contentType))
    }

    /// UTF-8 text as `text/plain; charset=utf-8`.
    public static func text(_ text: String) -> StubResponse {
        StubResponse(body: .data(Data(text.utf8), contentType: "text/plain; charset=utf-8"))
    }

    /// A JSON document as `application/json`.
    public static func json(_ json: JSONValue) -> StubResponse {
        StubResponse(body: .json(json))
    }

    /// Any `Encodable` value, encoded as JSON with sorted keys.
    public static func json(encoding value: some Encodable) throws -> StubResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return StubResponse(body: .data(try encoder.encode(value), contentType: "application/json"))
    }

    /// A file's bytes, read when the stub answers; Content-Type from the bytes' image
    /// signature, else from the extension.
    public static func file(_ url: URL) -> StubResponse {
        StubResponse(body: .file(url))
    }

    /// A redirect to `location` (absolute, or relative to the request's URL).
    /// - Parameters:
    ///   - location: the `Location` header's value.
    ///   - status: 301, 302, 303, 307 or 308 (any 3xx is sent as given).
    public static func redirect(to location: String, status: Int = 302) -> StubResponse {
        precondition((300...399).contains(status), "a redirect's status must be 3xx, not \(status)")
        return StubResponse(body: .redirect(to: location), status: status)
    }

    /// A network failure instead of a response.
    public static func failure(_ fault: Fault) -> StubResponse {
        StubResponse(body: .failure(fault))
    }

    /// An image, served in `format`, optionally resized and damaged.
    ///
    /// Content-Type comes from the format served, Content-Length is the bytes' size. Transcodes
    /// go through the registry's `ImageTranscoder` (cached: a repeat costs no codec work).
    /// `.original` serves the source's bytes as they are (a generated image as PNG, an
    /// animation as lossless WebP; resized: re-encoded in the source's format);
    /// `.negotiated(among:)` picks the format the request's Accept header admits with the
    /// highest q (see ``AcceptHeader/negotiatedImageKind(among:)``), serves the source's own
    /// bytes when they already are that format and otherwise encodes it (losslessly for a
    /// lossless source; JPEG at 85, lossy WebP at 80 for a lossy one), answers 406 when the
    /// header admits none, and always adds `Vary: Accept`. A source that cannot be read or
    /// decoded makes the stub answer 500 with the reason.
    ///
    /// ```swift
    /// stubs.stub(.pathExtension("webp")) { _ in .image(.file(catWebP), as: .png) }
    /// stubs.stub(.pathPrefix("/cdn/"), response: .image(.file(photo), as: .negotiated(among: [.webp, .jpeg]),
    ///                                                   resize: .init(width: .query("w"), height: .query("h"), fit: .cover)))
    /// stubs.stub(.path("/broken.png"), response: .image(.file(photo), as: .png, damage: .badChecksum))
    /// ```
    /// - Parameters:
    ///   - source: a file, bytes, a generated image or an animation.
    ///   - format: an encoding, the source's own bytes (the default) or negotiation (see
    ///     ``ServedImageFormat``).
    ///   - resize: a size to scale to, fixed or from the query (see ``Resize``); a bad query
    ///     value answers 400 naming the parameter.
    ///   - damage: a defect put into the encoded bytes (see `ImageDamage`); Content-Type stays.
    public static func image(
        _ source: ImageSource, as format: ServedImageFormat = .original, resize: Resize? = nil, damage: ImageDamage? = nil
    ) -> StubResponse {
        StubResponse(body: .image(source, as: format, options: ImageOptions(resize: resize, damage: damage)))
    }

    /// The real response, fetched upstream: from `base` (scheme, host and port replaced, path
    /// and query kept), or from the request's own URL when `base` is `nil`.
    ///
    /// In-process the fetch goes through a plain inner `URLSession` that never sees the stubs.
    /// With `transcode`, a PNG, WebP or JPEG body is converted (as ``transcoded(to:)`` describes);
    /// any other body passes through unchanged, and an image the codecs reject is a 502.
    ///
    /// ```swift
    /// .forward(to: URL(string: "http://127.0.0.1:8081"), transcode: .png)
    /// ```
    /// - Parameters:
    ///   - base: the upstream's scheme, host and port; `nil` for the request's own URL.
    ///   - headers: headers set on the forwarded request, replacing the client's of the same
    ///     name (WireMock's `additionalProxyRequestHeaders`).
    ///   - transcode: the format to convert an image body to; `nil` leaves the body as received.
    public static func forward(to base: URL? = nil, adding headers: HeaderFields = [:], transcode: ServedImageFormat? = nil) -> StubResponse {
        var response = StubResponse(body: .forward(to: base, adding: headers))
        response.transcode = transcode
        return response
    }

    // MARK: - Modifiers

    /// The same response with another status code.
    public func status(_ code: Int) -> StubResponse {
        var copy = self
        copy.statusCode = code
        return copy
    }

    /// The same response with these headers set (they win over the ones Understudy sets).
    public func headers(_ headers: HeaderFields) -> StubResponse {
        var copy = self
        copy.headers.merge(headers)
        return copy
    }

    /// The same response with its image body served in `format`: for ``image(_:as:resize:damage:)`` it
    /// replaces the format; for ``data(_:contentType:)``, ``file(_:)`` and ``forward(to:adding:transcode:)``
    /// it converts a PNG, WebP or JPEG body. Transcoding a canned body that is not an image answers 500;
    /// other bodies (text, JSON, redirects, faults) are left as they are.
    ///
    /// ```swift
    /// .file(catWebP).transcoded(to: .negotiated)
    /// ```
    public func transcoded(to format: ServedImageFormat) -> StubResponse {
        var copy = self
        if case .image(let source, _, let options) = body {
            copy.body = .image(source, as: format, options: options)
        } else {
            copy.transcode = format
        }
        return copy
    }

    /// Waits `duration` before the headers (or the fault).
    public func delayed(by duration: Duration) -> StubResponse {
        delayed(.fixed(duration))
    }

    /// Waits a delay drawn from `delay` before the headers (or the fault).
    public func delayed(_ delay: Delay) -> StubResponse {
        var copy = self
        copy.delay = delay
        return copy
    }

    /// Delivers the body at `bandwidth`, in slices of 16 KB (a second's bytes at lower rates),
    /// as a network profile's rate paces it.
    public func throttled(to bandwidth: Bandwidth) -> StubResponse {
        var copy = self
        copy.bandwidth = bandwidth
        return copy
    }

    /// Sends the headers with the full Content-Length, then `bytes` of the body, then drops
    /// the connection (in-process: `URLError(.networkConnectionLost)`). At or beyond the
    /// body's length the whole body is sent.
    public func truncated(after bytes: Int) -> StubResponse {
        var copy = self
        copy.truncateAfter = max(0, bytes)
        return copy
    }

    /// The same response sending no Content-Type unless ``headers(_:)`` gives one, as WireMock
    /// mappings answer.
    func withoutInferredContentType() -> StubResponse {
        var copy = self
        copy.infersContentType = false
        return copy
    }

    /// The fault this response injects every time: a ``failure(_:)``'s, or one set with
    /// ``faulted(_:chance:)`` without a chance.
    public var fault: Fault? {
        if case .failure(let fault) = body { return fault }
        return phaseFault
    }
}
