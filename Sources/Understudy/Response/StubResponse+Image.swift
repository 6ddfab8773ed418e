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

/// What an image response does besides choosing a format: resizing and damage.
struct ImageOptions: Sendable {
    var resize: StubResponse.Resize?
    var damage: ImageDamage?

    static let none = ImageOptions()
}

extension StubResponse {
    /// The bytes of `source` in `format` for `request`, or a 406 answer.
    /// - Throws: ``RenderError``: 400 for resize parameters that are not positive integers or
    ///   ask for too many pixels, 500 naming the source, the format and the codec's reason.
    static func renderImage(
        _ source: ImageSource, as format: ServedImageFormat, options: ImageOptions = .none, described: String? = nil,
        for request: StubRequest, context: RenderContext
    ) async throws -> ImageAnswer {
        let transcoder = context.transcoder ?? .shared
        let name = described ?? describe(source)
        let resolved = try options.resize?.resolved(for: request, pixelLimit: transcoder.pixelLimit)
        let resize = resolved?.resize
        let damage = options.damage
        do {
            switch format {
            case .original:
                if source.isGenerated {
                    let target: ImageFormat = if case .animated = source { .webpLossless } else { .png }
                    let produced = try await transcoder.render(source, as: target, resize: resize, damage: damage)
                    return ImageAnswer(body: produced, contentType: target.kind.mimeType, variesByAccept: false)
                }
                let data = try source.originalData(pixelLimit: transcoder.pixelLimit)
                var contentType = MediaType.sniff(data) ?? "application/octet-stream"
                if case .file(let url) = source { contentType = MediaType.forFile(url, data: data) }
                guard let resize else {
                    return ImageAnswer(body: damage?.apply(to: data) ?? data, contentType: contentType, variesByAccept: false)
                }
                guard let kind = ImageKind.detect(data), let target = sameFormatTarget(kind, data) else {
                    throw RenderError("cannot resize \(name): \(MediaType.sniff(data) ?? "its bytes are not an image"); expected PNG, WebP, JPEG, GIF, AVIF or HEIC")
                }
                let produced = try await transcoder.render(source, as: target, resize: resize, damage: damage)
                return ImageAnswer(body: produced, contentType: target.kind.mimeType, variesByAccept: false)

            case .negotiated(let kinds):
                let accept = AcceptHeader(acceptValue(of: request))
                // Only what this build encodes is offered (every format with the C codecs).
                let offered = kinds.filter(\.canEncode)
                if offered.isEmpty, let unencodable = kinds.first { throw ImageError.cannotEncode(unencodable) }
                guard let kind = accept.negotiatedImageKind(among: offered) else {
                    return notAcceptable(accept, offered: offered)
                }
                // Negotiation picks a format, not an encoding: bytes already in that format are
                // served as they are (a lossy WebP stays lossy); others are encoded losslessly
                // when the source is lossless (PNG, lossless WebP, drawn), else lossily.
                let produced: Data
                if source.isGenerated {
                    produced = try await transcoder.render(source, as: negotiatedTarget(kind, sourceIsLossy: false), resize: resize, damage: damage)
                } else {
                    let data = try source.originalData(pixelLimit: transcoder.pixelLimit)
                    if resize == nil, ImageKind.detect(data) == kind {
                        produced = damage?.apply(to: data) ?? data
                    } else {
                        // A file source goes by its stamp, so a cache hit does not hash it.
                        let target = negotiatedTarget(kind, sourceIsLossy: isLossy(data))
                        produced = try await transcoder.render(source, as: target, resize: resize, damage: damage)
                    }
                }
                return ImageAnswer(body: produced, contentType: kind.mimeType, variesByAccept: true)

            case .encoded(let target):
                let produced = try await transcoder.render(source, as: target, resize: resize, damage: damage)
                return ImageAnswer(body: produced, contentType: target.kind.mimeType, variesByAccept: false)
            }
        } catch let error as ImageError where error.code == .invalidResize {
            throw RenderError(status: 400, "400 Bad Request: the resize asked for (\(resolved?.origin ?? "the stub's")) cannot be done: \(error)\n")
        } catch let error as ImageError {
            throw RenderError("cannot serve \(name) as \(format.inWords): \(error)")
        }
    }

    /// The encoding `.negotiated` serves `kind` in when it cannot pass the source through: a
    /// lossy one at the stub files' default quality.
    static func negotiatedTarget(_ kind: ImageKind, sourceIsLossy: Bool) -> ImageFormat {
        switch kind {
        case .webp: sourceIsLossy ? .webp : .webpLossless
        case .jpeg: .jpeg
        case .avif: .avif
        case .heic: .heic
        case .gif: .gif
        case .png: .png
        }
    }

    /// The encoding that keeps a resized `.original` in its own format, lossy ones at the stub
    /// files' default quality: JPEG (progressive when the source is), WebP lossy or lossless as
    /// the source was, PNG, AVIF, HEIC, GIF.
    static func sameFormatTarget(_ kind: ImageKind, _ data: Data) -> ImageFormat? {
        switch kind {
        case .png: .png
        case .webp: isLossy(data) ? .webp : .webpLossless
        case .jpeg: isProgressiveJPEG(data) ? .jpegProgressive : .jpeg
        case .avif: .avif
        case .heic: .heic
        case .gif: .gif
        }
    }

    /// Whether the bytes are a JPEG, AVIF, HEIC or a lossy WebP (a `VP8 ` chunk, not `VP8L`).
    static func isLossy(_ data: Data) -> Bool {
        switch ImageKind.detect(data) {
        case .jpeg, .avif, .heic: return true
        case .webp:
            // Simple files start their first chunk at 12; extended ones (VP8X) have the image
            // chunk after the optional ALPH chunk, so look a little further.
            let head = Array(data.prefix(4096))
            let lossy = Array("VP8 ".utf8)
            guard head.count >= 16 else { return false }
            return (12...(head.count - 4)).contains { head[$0..<$0 + 4].elementsEqual(lossy) }
        default: return false
        }
    }

    /// Whether the JPEG's frame header is a progressive one (SOF2).
    static func isProgressiveJPEG(_ data: Data) -> Bool {
        let bytes = Array(data.prefix(65536))
        var index = 2
        while index + 3 < bytes.count, bytes[index] == 0xFF {
            let marker = bytes[index + 1]
            if marker == 0xC2 { return true }
            if marker == 0xC0 || marker == 0xC1 || marker == 0xDA { return false }
            index += 2 + (Int(bytes[index + 2]) << 8 | Int(bytes[index + 3]))
        }
        return false
    }

    /// A canned body (data or file) converted to `format`.
    /// - Throws: ``RenderError`` (500) when the body is not an image or cannot be decoded.
    static func transcodeCanned(
        _ data: Data, described: String, to format: ServedImageFormat, for request: StubRequest, context: RenderContext
    ) async throws -> ImageAnswer {
        if format == .original {
            return ImageAnswer(body: data, contentType: MediaType.sniff(data) ?? "application/octet-stream", variesByAccept: false)
        }
        guard ImageKind.detect(data) != nil else {
            throw RenderError("cannot transcode \(described) to \(format.inWords): it is not an image; expected PNG, WebP, JPEG, GIF, AVIF or HEIC bytes")
        }
        return try await renderImage(.data(data), as: format, described: described, for: request, context: context)
    }

    /// A forwarded body converted to `format`; `nil` when it is not an image (it passes through
    /// unchanged).
    /// - Throws: ``RenderError`` (502) when the upstream's image cannot be decoded.
    static func transcodeForwarded(
        _ data: Data, from url: URL, to format: ServedImageFormat, for request: StubRequest, context: RenderContext
    ) async throws -> ImageAnswer? {
        guard format != .original, let kind = ImageKind.detect(data) else { return nil }
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
    static func notAcceptable(_ accept: AcceptHeader, offered kinds: [ImageKind]) -> ImageAnswer {
        let offered = kinds.map(\.mimeType).joined(separator: ", ")
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
        case .animated(let width, let height, let pattern, let frames, let duration):
            "generated \(width)x\(height) \(describe(pattern)) animation of \(frames) frames of \(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)ms"
        }
    }

    static func describe(_ pattern: ImagePattern) -> String {
        switch pattern {
        case .checkerboard: "checkerboard"
        case .gradient: "gradient"
        case .solid(let color): "solid \(color)"
        case .photo: "photo"
        }
    }
}
