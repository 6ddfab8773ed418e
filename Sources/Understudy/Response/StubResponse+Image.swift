import Foundation
import UnderstudyImages

/// An image body as it will be served: the bytes, their type, and what negotiation changed.
struct ImageAnswer: Sendable {
    /// A status replacing the response's (406 when negotiation found nothing acceptable).
    var status: Int?
    var body: Data
    var contentType: String
    /// Whether the Accept header chose the body, so caches must key on it.
    var variesByAccept: Bool

    func apply(status: inout Int, headers: inout HeaderFields, body: inout Data) {
        if let replacement = self.status { status = replacement }
        headers["Content-Type"] = contentType
        if variesByAccept {
            let existing = headers.values(for: "Vary").joined(separator: ", ")
            let tokens = existing.split(separator: ",").map { $0.trimmingSpaces().lowercased() }
            if existing.isEmpty {
                headers["Vary"] = "Accept"
            } else if !tokens.contains("accept") && !tokens.contains("*") {
                headers["Vary"] = existing + ", Accept"
            }
        }
        body = self.body
    }
}

extension StubResponse {
    /// The bytes of `source` in `format` for `request`, or a 406 answer.
    /// - Throws: ``RenderError`` (500) naming the source, the format and the codec's reason.
    static func renderImage(
        _ source: ImageSource, as format: ImageFormat, described: String? = nil,
        for request: StubRequest, context: RenderContext
    ) async throws -> ImageAnswer {
        let transcoder = context.transcoder ?? .shared
        let name = described ?? describe(source)
        do {
            switch format {
            case .original:
                if case .generated = source {
                    let png = try await transcoder.render(source, as: .png)
                    return ImageAnswer(body: png, contentType: ImageKind.png.mimeType, variesByAccept: false)
                }
                let data = try source.originalData(pixelLimit: transcoder.pixelLimit)
                var contentType = MediaType.sniff(data) ?? "application/octet-stream"
                if case .file(let url) = source { contentType = MediaType.forFile(url, data: data) }
                return ImageAnswer(body: data, contentType: contentType, variesByAccept: false)

            case .negotiated:
                let accept = AcceptHeader(acceptValue(of: request))
                guard let kind = accept.negotiatedImageKind else {
                    return notAcceptable(accept)
                }
                // Negotiation picks a format, not an encoding: bytes already in that format are
                // served as they are (a lossy WebP stays lossy); others become PNG or lossless WebP.
                let target: TranscodeTarget = kind == .webp ? .webpLossless : .png
                let produced: Data
                if case .generated = source {
                    produced = try await transcoder.render(source, as: target)
                } else {
                    let data = try source.originalData(pixelLimit: transcoder.pixelLimit)
                    produced = ImageKind.detect(data) == kind ? data : try await transcoder.transcode(data, to: target)
                }
                return ImageAnswer(body: produced, contentType: kind.mimeType, variesByAccept: true)

            case .png, .webp, .webpLossless:
                // Every case above leaves `transcodeTarget` non-nil here.
                let target = format.transcodeTarget ?? .png
                let produced = try await transcoder.render(source, as: target)
                let contentType = MediaType.sniff(produced) ?? target.mimeType
                return ImageAnswer(body: produced, contentType: contentType, variesByAccept: false)
            }
        } catch let error as ImageError {
            throw RenderError("cannot serve \(name) as \(describe(format)): \(error)")
        }
    }

    /// A canned body (data or file) converted to `format`.
    /// - Throws: ``RenderError`` (500) when the body is not an image or cannot be decoded.
    static func transcodeCanned(
        _ data: Data, described: String, to format: ImageFormat, for request: StubRequest, context: RenderContext
    ) async throws -> ImageAnswer {
        if format == .original {
            return ImageAnswer(body: data, contentType: MediaType.sniff(data) ?? "application/octet-stream", variesByAccept: false)
        }
        guard ImageKind.detect(data) != nil else {
            throw RenderError("cannot transcode \(described) to \(describe(format)): it is not an image; expected PNG or WebP bytes")
        }
        return try await renderImage(.data(data), as: format, described: described, for: request, context: context)
    }

    /// A forwarded body converted to `format`; `nil` when it is not a PNG or WebP image (it
    /// passes through unchanged).
    /// - Throws: ``RenderError`` (502) when the upstream's image cannot be decoded.
    static func transcodeForwarded(
        _ data: Data, from url: URL, to format: ImageFormat, for request: StubRequest, context: RenderContext
    ) async throws -> ImageAnswer? {
        guard format != .original, let kind = ImageKind.detect(data), kind == .png || kind == .webp else { return nil }
        do {
            return try await renderImage(
                .data(data), as: format, described: "the \(kind.mimeType) body from \(url.absoluteString)",
                for: request, context: context
            )
        } catch let error as RenderError {
            throw RenderError(status: 502, error.message)
        }
    }

    /// The 406 a `.negotiated` response answers when the Accept header admits no offered format.
    static func notAcceptable(_ accept: AcceptHeader) -> ImageAnswer {
        let offered = AcceptHeader.offeredImageKinds.map(\.mimeType).joined(separator: ", ")
        let text = "406 Not Acceptable: the Accept header \"\(accept)\" admits none of the formats on offer: \(offered)\n"
        return ImageAnswer(status: 406, body: Data(text.utf8), contentType: "text/plain; charset=utf-8", variesByAccept: true)
    }

    /// Every Accept header of the request as one list; `nil` when it sent none.
    static func acceptValue(of request: StubRequest) -> String? {
        let values = request.headers.values(for: "Accept")
        return values.isEmpty ? nil : values.joined(separator: ",")
    }

    static func describe(_ source: ImageSource) -> String {
        switch source {
        case .file(let url): "image file \(url.path)"
        case .data(let data): "image data (\(data.count) bytes)"
        case .generated(let width, let height, let pattern): "generated \(width)x\(height) \(describe(pattern)) image"
        }
    }

    static func describe(_ pattern: ImagePattern) -> String {
        switch pattern {
        case .checkerboard: "checkerboard"
        case .gradient: "gradient"
        case .solid(let color): "solid \(color)"
        }
    }

    static func describe(_ format: ImageFormat) -> String {
        switch format {
        case .png: "PNG"
        case .webp(let quality): "WebP at quality \(quality)"
        case .webpLossless: "lossless WebP"
        case .original: "its original bytes"
        case .negotiated: "the negotiated format"
        }
    }
}
