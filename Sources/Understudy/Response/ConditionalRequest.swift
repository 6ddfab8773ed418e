import Foundation
import UnderstudySupport

/// Conditional and range requests answered from a rendered response:
/// the one place both transports get `304`, `206`, `multipart/byteranges` and `416` from, so
/// that in-process and on the wire the bytes are the same.
///
/// Evaluated in the order HTTP defines for a `200` whose stub has validators or ranges on:
/// `If-None-Match` (weak comparison, `*`, lists), else `If-Modified-Since`, give `304`; then
/// `Range` (with `If-Range`, strong comparison or the exact date) gives `206` or `416`. HEAD is
/// answered like GET without the body. Ranges apply to the bytes served (after transcoding),
/// and the response's delay, bandwidth, truncation, pause and fault carry over to the answer.
package enum ConditionalRequest {
    /// What a request selects of a response.
    package enum Selection: Sendable, Hashable {
        /// The response as it is.
        case whole
        /// `304 Not Modified`.
        case notModified
        /// `206`: one range, or several as `multipart/byteranges`.
        case ranges([Range<Int>])
        /// `416 Range Not Satisfiable`.
        case unsatisfiable
    }

    /// Whether a `304` or `416` keeps the full response's field `name`: every field but the full
    /// body's representation metadata (`Content-*`, except `Content-Location`,
    /// which §15.4.5 lists) and its framing; a `304` drops `Accept-Ranges` too, as nginx does.
    /// The stub's own fields stay, as nginx keeps its `add_header` fields on a 304: a client
    /// revalidating reads them (say, `X-Image-Variant`).
    static func bodilessAnswerKeeps(_ name: String, status: Int) -> Bool {
        guard name.utf8.count >= 8, name.utf8.prefix(8).lazy.map({ $0 | 0x20 }).elementsEqual("content-".utf8) else {
            return !name.caseInsensitiveEquals("Transfer-Encoding") && (status != 304 || !name.caseInsensitiveEquals("Accept-Ranges"))
        }
        return name.caseInsensitiveEquals("Content-Location")
    }

    /// Fields that describe the full body's bytes, wrong for a part of them (a `206`'s).
    static let fullBodyDigests = ["Content-MD5", "Content-Digest"]

    /// `prepared` as the answer to `request`: itself, or its 304, 206 or 416.
    /// - Parameter remembered: what an identical request selected before, for a transport that
    ///   answers one request again (see ``RememberedSelection``).
    package static func answer(
        _ request: StubRequest, with prepared: PreparedResponse, remembered: RememberedSelection? = nil
    ) -> PreparedResponse {
        guard prepared.answersConditionals || prepared.acceptsRanges, prepared.status == 200, prepared.fault == nil,
              Self.mayBeConditional(request)
        else { return prepared }
        let selection = remembered?.selection(of: prepared) { select(request, for: prepared) } ?? select(request, for: prepared)
        guard selection != .whole else { return prepared }
        if let variants = prepared.variants {
            return variants.variant(selection) { make(selection, from: prepared) }
        }
        return make(selection, from: prepared)
    }

    /// Whether any header could make a request conditional or ranged: `If-…` or `Range`. One
    /// look at each name's first letter, since every request a stub server answers asks this.
    static func mayBeConditional(_ request: StubRequest) -> Bool {
        request.headers.contains { field in
            let first = field.name.utf8.first ?? 0
            return first | 0x20 == UInt8(ascii: "i") || first | 0x20 == UInt8(ascii: "r")
        }
    }

    /// What one request selected of a rendering, kept for requests identical to it: they select
    /// the same of the same rendering. A client asking for one range over and over (a video's
    /// or a large image's next piece, retried) then has its `Range` read once, not per request.
    ///
    /// Only the selection is kept, not the answer made of it: the rendering's ``ResponseVariants``
    /// hold those, within their bounds.
    package final class RememberedSelection: Sendable {
        private let state = LockedState<(renderID: UInt64, selection: Selection)?>(nil)

        init() {}

        /// What the request selects of `prepared`: the selection kept when `prepared` is the
        /// rendering it was made from, else `select`'s (kept in its place).
        func selection(of prepared: PreparedResponse, select: () -> Selection) -> Selection {
            guard let renderID = prepared.renderID else { return select() }
            if let kept = state.withLock({ $0 }), kept.renderID == renderID { return kept.selection }
            let selection = select()
            state.withLock { $0 = (renderID, selection) }
            return selection
        }
    }

    // MARK: - Deciding

    /// What `request` selects of `prepared` (a 200 with validators or ranges on).
    package static func select(_ request: StubRequest, for prepared: PreparedResponse) -> Selection {
        let method = request.method
        guard method == "GET" || method == "HEAD" else { return .whole }
        // Asked of every request to a stub with validators or ranges, so the request's fields
        // are read in one pass, and the stub's tag only when a field compares with it.
        lazy var etag = prepared.headers["ETag"]
        var hasIfNoneMatch = false
        var ifModifiedSince: String?
        var rangeHeader: String?
        var ifRange: String?
        for field in request.headers.fields {
            let name = field.name
            if name.caseInsensitiveEquals("If-None-Match") {
                guard prepared.answersConditionals else { continue }
                // Each line read in place: a 304 is what a revalidating client gets request
                // after request.
                hasIfNoneMatch = true
                if matches(field.value, etag: etag) { return .notModified }
            } else if ifModifiedSince == nil, name.caseInsensitiveEquals("If-Modified-Since") {
                ifModifiedSince = field.value
            } else if rangeHeader == nil, name.caseInsensitiveEquals("Range") {
                rangeHeader = field.value
            } else if ifRange == nil, name.caseInsensitiveEquals("If-Range") {
                ifRange = field.value
            }
        }
        // With `If-None-Match` present and no tag matching, If-Modified-Since is not looked at
        // (§13.1.3).
        if prepared.answersConditionals, !hasIfNoneMatch, let since = ifModifiedSince.flatMap(HTTPDate.parse),
           let modified = prepared.lastModified, modified.wholeSeconds <= since.wholeSeconds {
            return .notModified
        }
        guard prepared.acceptsRanges, let rangeHeader, let range = RangeRequest(rangeHeader) else {
            return .whole
        }
        if let ifRange, !ifRangeHolds(ifRange, etag: etag, lastModified: prepared.lastModified) {
            return .whole
        }
        guard range.specifiers.count <= RangeRequest.maximumRanges else { return .whole }
        let ranges = range.satisfiable(length: prepared.body.count)
        // As nginx: ranges that add up to more than the body (overlaps, repeats) get the whole
        // body, so that a request cannot make a multipart many times the body's size.
        guard ranges.reduce(0, { $0 + $1.count }) <= prepared.body.count else { return .whole }
        return ranges.isEmpty ? .unsatisfiable : .ranges(ranges)
    }

    /// An `If-None-Match` list against the current tag, by weak comparison (§13.1.2).
    static func matches(_ list: String, etag: String?) -> Bool {
        // The usual revalidation sends back exactly the tag it was given.
        if let etag, list == etag { return true }
        for tag in entityTags(in: list) {
            if tag == "*" { return true }
            if let etag, opaque(tag) == opaque(etag) { return true }
        }
        return false
    }

    /// `If-Range`: an entity tag matches by strong comparison (a weak tag never does); a date
    /// must be exactly the `Last-Modified` (§13.1.5).
    static func ifRangeHolds(_ condition: String, etag: String?, lastModified: Date?) -> Bool {
        let value = condition.trimmingSpaces()
        if value.hasPrefix("\"") || value.hasPrefix("W/") {
            guard let etag, !value.hasPrefix("W/"), !etag.hasPrefix("W/") else { return false }
            return value == etag
        }
        guard let date = HTTPDate.parse(value), let lastModified else { return false }
        return date.wholeSeconds == lastModified.wholeSeconds
    }

    /// The entity tags of a list, `"a", W/"b"` (commas inside quotes are part of a tag).
    static func entityTags(in list: String) -> [String] {
        var tags: [String] = []
        var current = ""
        var quoted = false
        for character in list {
            if character == "\"" { quoted.toggle() }
            if character == ",", !quoted {
                tags.append(current.trimmingSpaces())
                current = ""
            } else {
                current.append(character)
            }
        }
        tags.append(current.trimmingSpaces())
        return tags.filter { !$0.isEmpty }
    }

    private static func opaque(_ tag: String) -> Substring {
        tag.hasPrefix("W/") ? tag.dropFirst(2) : Substring(tag)
    }

    // MARK: - Answering

    /// The response `selection` makes of `prepared`.
    static func make(_ selection: Selection, from prepared: PreparedResponse) -> PreparedResponse {
        var answer = prepared
        answer.variants = nil
        answer.renderID = nil
        answer.sourceFile = nil
        switch selection {
        case .whole:
            return prepared
        case .notModified:
            answer.status = 304
            answer.headers = HeaderFields(prepared.headers.fields.filter { bodilessAnswerKeeps($0.name, status: 304) })
            answer.body = Data()
            answer.truncateAfter = nil
            answer.pause = nil
            answer.pieces = nil
        case .unsatisfiable:
            answer.status = 416
            answer.headers = HeaderFields(prepared.headers.fields.filter { bodilessAnswerKeeps($0.name, status: 416) })
            answer.headers["Content-Range"] = "bytes */\(prepared.body.count)"
            answer.headers["Content-Length"] = "0"
            answer.body = Data()
            answer.truncateAfter = nil
            answer.pause = nil
            answer.pieces = nil
        case .ranges(let ranges) where ranges.count == 1:
            // Every field but the full body's digests stays, the stub's own among them.
            for name in fullBodyDigests { answer.headers.remove(name) }
            let range = ranges[0]
            answer.status = 206
            answer.body = prepared.body.subdata(in: range.shifted(by: prepared.body.startIndex))
            answer.headers["Content-Range"] = contentRange(range, of: prepared.body.count)
            answer.headers["Content-Length"] = String(range.count)
            answer.pieces = prepared.pieces.map { pieces in
                // Cut where the whole body is cut, counted from the range's first byte.
                var shifted = pieces
                shifted.offsets = pieces.offsets.filter { range.contains($0) && $0 != range.lowerBound }.map { $0 - range.lowerBound }
                return shifted
            }
            if var file = prepared.sourceFile {
                file.offset += range.lowerBound
                answer.sourceFile = file
            }
        case .ranges(let ranges):
            let boundary = Self.boundary(for: prepared)
            let contentType = prepared.headers["Content-Type"]
            var body = Data()
            var cuts: [Int] = []
            for range in ranges {
                var head = "\r\n--\(boundary)\r\n"
                if let contentType { head += "Content-Type: \(contentType)\r\n" }
                head += "Content-Range: \(contentRange(range, of: prepared.body.count))\r\n\r\n"
                body.append(contentsOf: Array(head.utf8))
                for cut in prepared.pieces?.offsets ?? [] where range.contains(cut) && cut != range.lowerBound {
                    cuts.append(body.count + cut - range.lowerBound)
                }
                body.append(prepared.body.subdata(in: range.shifted(by: prepared.body.startIndex)))
            }
            answer.pieces = prepared.pieces.map { PreparedResponse.Pieces(offsets: cuts, interval: $0.interval) }
            body.append(contentsOf: Array("\r\n--\(boundary)--\r\n".utf8))
            for name in fullBodyDigests { answer.headers.remove(name) }
            answer.status = 206
            answer.body = body
            answer.headers["Content-Type"] = "multipart/byteranges; boundary=\(boundary)"
            answer.headers["Content-Length"] = String(body.count)
        }
        return answer
    }

    /// `bytes 0-99/1000`.
    static func contentRange(_ range: Range<Int>, of length: Int) -> String {
        "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(length)"
    }

    /// A multipart boundary that is the same for every answer from one rendering (so those
    /// answers are alike byte for byte) and, being made of the body's digest, does not occur in it
    /// by chance.
    static func boundary(for prepared: PreparedResponse) -> String {
        let tag = prepared.headers["ETag"].map { $0.filter { $0.isLetter || $0.isNumber } } ?? ""
        return "understudy-" + (tag.isEmpty ? BodyDigest.hex(of: prepared.body) : String(tag.prefix(32)))
    }
}

extension Range where Bound == Int {
    fileprivate func shifted(by offset: Int) -> Range<Int> {
        (lowerBound + offset)..<(upperBound + offset)
    }
}

extension Date {
    /// Whole seconds since 1970, as HTTP dates count.
    fileprivate var wholeSeconds: Int64 { Int64(timeIntervalSince1970.rounded(.down)) }
}
