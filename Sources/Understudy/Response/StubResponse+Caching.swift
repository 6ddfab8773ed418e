import Foundation

extension StubResponse {
    // MARK: - Modifiers

    /// The same response with these validators and `Cache-Control` (a stub file's `cache:`).
    ///
    /// ```swift
    /// .file(photo).cache(CachePolicy(control: "no-cache"))   // always revalidated, answered 304
    /// .file(photo).cache(.none)
    /// ```
    public func cache(_ policy: CachePolicy) -> StubResponse {
        var copy = self
        copy.cachePolicy = policy
        return copy
    }

    /// The same response answering `Range` requests (`206`, `multipart/byteranges`, `416`) or,
    /// with `false`, always sending the whole body without `Accept-Ranges`. On by default for
    /// file, data, and image bodies.
    public func ranges(_ enabled: Bool) -> StubResponse {
        var copy = self
        copy.rangesEnabled = enabled
        return copy
    }

    /// The same response whose body stops after `afterBytes` bytes until the gate named `gate`
    /// is released (see ``StubRegistry/gate(_:)``). The head and the first bytes are sent
    /// (flushed) first; the held request is in the journal as in flight. A body no longer
    /// than `afterBytes` is not held.
    /// - Parameters:
    ///   - afterBytes: body bytes sent before it waits (of the body served: a range's, for a 206).
    ///   - gate: the gate's name.
    public func paused(afterBytes: Int, gate: String) -> StubResponse {
        var copy = self
        copy.pause = BodyPause(afterBytes: afterBytes, gate: gate)
        return copy
    }

    // MARK: - Rendering

    /// Whether the body is one that validators and ranges are on for by default: bytes, a
    /// file or an image (not text made for the occasion, JSON, redirects, faults or forwards).
    private var servesAResource: Bool {
        switch body {
        case .data, .file, .image: return true
        case .empty, .json, .redirect, .failure, .forward: return false
        }
    }

    /// The cache policy in force: the one set, else ``CachePolicy/standard`` for file, data and
    /// image bodies; `nil` for others.
    var effectiveCachePolicy: CachePolicy? {
        cachePolicy ?? (servesAResource ? .standard : nil)
    }

    /// Whether `Range` requests are honoured: as set, else for file, data and image bodies.
    var acceptsRanges: Bool {
        rangesEnabled ?? servesAResource
    }

    /// Adds the validators, `Cache-Control` and `Accept-Ranges` this response sends with `body`
    /// to `prepared`, whose headers are final otherwise (the stub's own headers win).
    /// - Parameter modified: the modification time of the file the body comes from, if any.
    func addCaching(to prepared: inout PreparedResponse, modified: Date?) {
        prepared.pause = pause
        guard (200...299).contains(prepared.status), prepared.fault == nil else { return }
        var headers = HeaderFields()
        if let policy = effectiveCachePolicy {
            switch policy.etag {
            case .strong where !self.headers.contains("ETag"): headers["ETag"] = "\"\(BodyDigest.hex(of: prepared.body))\""
            case .weak where !self.headers.contains("ETag"): headers["ETag"] = "W/\"\(BodyDigest.hex(of: prepared.body))\""
            case .fixed(let tag): headers["ETag"] = tag
            case .strong, .weak, .none: break
            }
            switch policy.lastModified {
            case .file: prepared.lastModified = modified ?? madeAt
            case .date(let date): prepared.lastModified = date
            case .none: break
            }
            if let lastModified = prepared.lastModified { headers["Last-Modified"] = HTTPDate.format(lastModified) }
            if let control = policy.control { headers["Cache-Control"] = control }
        }
        if acceptsRanges { headers["Accept-Ranges"] = "bytes" }
        // The stub's own headers win over the ones made here.
        for field in headers where !self.headers.contains(field.name) {
            prepared.headers[field.name] = field.value
        }
        if let own = self.headers["Last-Modified"] { prepared.lastModified = HTTPDate.parse(own) }
        prepared.answersConditionals = effectiveCachePolicy != nil
            && (prepared.headers.contains("ETag") || prepared.lastModified != nil)
        prepared.acceptsRanges = acceptsRanges
    }
}
