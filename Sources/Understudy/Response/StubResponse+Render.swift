import Foundation
import UnderstudyImages

/// A real HTTP exchange done on a stub's behalf, for `.forward(to:)` and pass-through.
///
/// Each transport supplies its own: in-process a plain `URLSession`, the server AsyncHTTPClient.
package protocol UpstreamFetcher: Sendable {
    /// Performs `request` against the network and returns what came back.
    func fetch(_ request: StubRequest) async throws -> UpstreamResponse
}

/// What an upstream answered.
package struct UpstreamResponse: Sendable {
    /// The status code.
    package var status: Int
    /// The headers as received.
    package var headers: HeaderFields
    /// The body, decoded of any transfer coding.
    package var body: Data

    /// Creates an upstream response.
    package init(status: Int, headers: HeaderFields, body: Data) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// What rendering a response needs from the transport running it.
package struct RenderContext: Sendable {
    /// Fetches `.forward` responses; `nil` makes them fail with a 502.
    package var upstream: (any UpstreamFetcher)?
    /// Transcodes image bodies; `nil` uses the registry's (``StubRegistry/transcoder``), or
    /// ``ImageTranscoder/shared`` when rendering outside a registry.
    package var transcoder: ImageTranscoder?

    /// Creates a context.
    /// - Parameters:
    ///   - upstream: fetches `.forward` responses.
    ///   - transcoder: transcodes image bodies; `nil` for the registry's.
    package init(upstream: (any UpstreamFetcher)? = nil, transcoder: ImageTranscoder? = nil) {
        self.upstream = upstream
        self.transcoder = transcoder
    }
}

/// Why a response could not be rendered; transports answer 500 (or 502 upstream) with this text.
public struct RenderError: Error, Sendable, CustomStringConvertible {
    /// The status the transport answers with.
    public let status: Int
    /// What went wrong.
    public let message: String

    /// Creates an error.
    public init(status: Int = 500, _ message: String) {
        self.status = status
        self.message = message
    }

    public var description: String { message }
}

extension StubResponse {
    /// Whether rendering needs to wait for something: an upstream, a codec, nothing else.
    package var rendersImmediately: Bool {
        guard transcode == nil else { return false }
        switch body {
        case .image, .forward: return false
        default: return true
        }
    }

    /// Turns this response into bytes and timing for `request`.
    /// - Parameters:
    ///   - request: the request being answered.
    ///   - stubName: the answering stub's name, sent as `X-Understudy-Stub`.
    ///   - context: the transport's upstream fetcher and transcoder.
    package func render(for request: StubRequest, stubName: String?, context: RenderContext) async throws -> PreparedResponse {
        if let immediate = try renderImmediately(for: request, stubName: stubName) {
            return immediate
        }
        var status = statusCode
        var headers: HeaderFields = [:]
        var bodyData = Data()
        var modified: Date?

        switch body {
        case .empty, .json, .redirect, .failure:
            preconditionFailure("rendered immediately")
        case .data(let data, let contentType):
            bodyData = data
            headers["Content-Type"] = contentType ?? MediaType.sniff(data) ?? "application/octet-stream"
            if let transcode {
                let answer = try await Self.transcodeCanned(data, described: "the body (\(data.count) bytes)", to: transcode, for: request, context: context)
                answer.apply(status: &status, headers: &headers, body: &bodyData)
            }
        case .image(let source, let format, let options):
            let answer = try await Self.renderImage(source, as: format, options: options, for: request, context: context)
            answer.apply(status: &status, headers: &headers, body: &bodyData)
            if case .file(let url) = source { modified = FileCache.shared.stamp(of: url.path)?.modified }
        case .file(let url):
            (bodyData, modified) = try Self.read(url)
            headers["Content-Type"] = MediaType.forFile(url, data: bodyData)
            if let transcode {
                let answer = try await Self.transcodeCanned(bodyData, described: "file \(url.path)", to: transcode, for: request, context: context)
                answer.apply(status: &status, headers: &headers, body: &bodyData)
            }
        case .forward(let base, let added):
            guard let upstream = context.upstream else {
                throw RenderError(status: 502, "forward: this transport has no upstream client")
            }
            let target = StubResponse.forwardedRequest(request, to: base, adding: added)
            let answer: UpstreamResponse
            do {
                answer = try await upstream.fetch(target)
            } catch {
                throw RenderError(status: 502, "forward to \(target.url.absoluteString) failed: \(Self.upstreamFailure(error))")
            }
            status = answer.status
            // The body arrives decoded and is framed anew: connection and framing headers no longer apply.
            headers = answer.headers.removingHopByHop(also: HeaderFields.framingNames)
            bodyData = answer.body
            if let transcode {
                let converted = try await Self.transcodeForwarded(answer.body, from: target.url, to: transcode, for: request, context: context)
                converted?.apply(status: &status, headers: &headers, body: &bodyData)
            }
        }
        return try prepared(status: status, headers: headers, body: bodyData, fault: nil, stubName: stubName, modified: modified)
    }

    /// Renders without suspending when nothing needs waiting for (see ``rendersImmediately``),
    /// so a transport can answer canned responses on the spot; `nil` otherwise.
    package func renderImmediately(for request: StubRequest, stubName: String?) throws -> PreparedResponse? {
        guard rendersImmediately else { return nil }
        var headers: HeaderFields = [:]
        var bodyData = Data()
        var fault: Fault?
        var modified: Date?
        switch body {
        case .empty:
            break
        case .data(let data, let contentType):
            bodyData = data
            headers["Content-Type"] = contentType ?? MediaType.sniff(data) ?? "application/octet-stream"
        case .json(let json):
            bodyData = json.encoded
            headers["Content-Type"] = "application/json"
        case .file(let url):
            (bodyData, modified) = try Self.read(url)
            headers["Content-Type"] = MediaType.forFile(url, data: bodyData)
        case .redirect(let location):
            headers["Location"] = location
        case .failure(let injected):
            fault = injected
        case .image, .forward:
            return nil
        }
        return try prepared(status: statusCode, headers: headers, body: bodyData, fault: fault, stubName: stubName, modified: modified)
    }

    /// The file's bytes and modification time.
    private static func read(_ url: URL) throws -> (Data, Date) {
        do {
            let (data, stamp) = try FileCache.shared.contentsAndStamp(of: url)
            return (data, stamp.modified)
        } catch {
            throw RenderError("cannot read file \(url.path): \((error as NSError).localizedDescription)")
        }
    }

    /// The stub's own headers over ours, the framing headers, the validators, the delay drawn.
    private func prepared(
        status: Int, headers base: HeaderFields, body: Data, fault: Fault?, stubName: String?, modified: Date?
    ) throws -> PreparedResponse {
        var headers = base
        var body = body
        if let contentCoding, !body.isEmpty {
            body = contentCoding.coding.encode(body)
            if contentCoding.labelled { headers["Content-Encoding"] = contentCoding.coding.rawValue }
        }
        if !infersContentType { headers.remove("Content-Type") }
        headers.merge(self.headers)
        // A length only on a final status (200 and up) with a body, on every transport.
        if headers["Content-Length"] == nil, status >= 200, !PreparedResponse.hasNoBody(status: status) {
            headers["Content-Length"] = String(body.count)
        }
        if let stubName {
            headers["X-Understudy-Stub"] = stubName
        }
        // A delay drawn at random is drawn per request, from the registry's seeded generator,
        // as a part left to chance that always applies (see ``PreparedResponse/drawing(using:)``).
        var chances = self.chances
        var fixedDelay: Duration?
        switch delay {
        case .fixed(let duration)?: fixedDelay = duration
        case let random?: chances.delay = .init(random, chance: 1)
        case nil: break
        }
        var prepared = PreparedResponse(
            status: status,
            headers: headers,
            body: body,
            // A stub's own delay and bandwidth win over its profile: they are what it asked for.
            delay: fixedDelay ?? (delay != nil ? .zero : network?.latency ?? .zero),
            bandwidth: bandwidth ?? network?.rate,
            truncateAfter: truncateAfter,
            fault: fault ?? phaseFault,
            stubName: stubName
        )
        prepared.network = network
        prepared.ownsDelay = delay != nil
        prepared.ownsBandwidth = bandwidth != nil
        prepared.bodyDelay = bodyDelay ?? .zero
        prepared.informational = informationalHeads
        if !chances.isEmpty { prepared.chances = chances }
        if let pieces, !body.isEmpty {
            prepared.pieces = PreparedResponse.Pieces(offsets: try pieces.offsets(in: body), interval: pieces.interval)
        }
        addCaching(to: &prepared, modified: modified)
        return prepared
    }

    /// Why an upstream could not answer, in the same words whichever HTTP client asked: the
    /// in-process transport's URLSession and the server's AsyncHTTPClient word the same failure
    /// differently, and a stub must not answer differently over the two.
    static func upstreamFailure(_ error: any Error) -> String {
        if let urlError = error as? URLError {
            switch urlError.code {
            case .cannotConnectToHost: return "connection refused"
            case .timedOut: return "timed out"
            case .cannotFindHost, .dnsLookupFailed: return "host not found"
            case .networkConnectionLost: return "connection lost"
            case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
                 .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot: return "TLS handshake failed"
            default: return "URLError \(urlError.code.rawValue)"
            }
        }
        let text = String(describing: error)
        let lowered = text.lowercased()
        if lowered.contains("refused") { return "connection refused" }
        if lowered.contains("timed out") || lowered.contains("timeout") || lowered.contains("deadline") { return "timed out" }
        if lowered.contains("resolve") || lowered.contains("host not found") || lowered.contains("nodename") { return "host not found" }
        if lowered.contains("reset by peer") || lowered.contains("remoteconnectionclosed") { return "connection lost" }
        if lowered.contains("certificate") || lowered.contains("handshake") || lowered.contains("ssl") { return "TLS handshake failed" }
        return text
    }

    /// `request` aimed at `base` (scheme, host and port from it; path and query kept).
    static func forwardedRequest(_ request: StubRequest, to base: URL?, adding added: HeaderFields = [:]) -> StubRequest {
        guard base != nil || !added.isEmpty else { return request }
        var headers = request.headers
        if base != nil { headers.remove("Host") }
        for field in added.fields { headers.remove(field.name) }
        for field in added.fields { headers.add(name: field.name, value: field.value) }
        let url = base.map { request.url.rebased(onto: $0) } ?? request.url
        return StubRequest(method: request.method, url: url, headers: headers, body: request.body)
    }
}
