import Foundation

extension StubResponse {
    /// The same response with `fault` striking at its phase (a ``Fault/resetDuringResponseBody(after:)``
    /// after that many bytes of this body), or replacing it (a ``Fault/connectionReset``), for
    /// the share `chance` of the requests it answers; the others get the plain answer.
    ///
    /// ```swift
    /// .file(photo).faulted(.resetDuringResponseBody(after: 1024))
    /// .file(photo).faulted(.disconnectAfterRequest, chance: 0.3)
    /// ```
    /// - Parameters:
    ///   - fault: what breaks, and where.
    ///   - chance: the share of requests it strikes, from 0 to 1 (drawn from the registry's
    ///     seeded generator, see ``StubRegistry/init(journalLimit:journalByteLimit:transcoder:seed:)``).
    public func faulted(_ fault: Fault, chance: Double = 1) -> StubResponse {
        Self.checkChance(chance)
        var copy = self
        if chance >= 1 {
            copy.phaseFault = fault
            copy.chances.fault = nil
        } else {
            copy.phaseFault = nil
            copy.chances.fault = .init(fault, chance: chance)
        }
        return copy
    }

    /// Waits a delay drawn from `delay` before the headers, for the share `chance` of the
    /// requests it answers; the others wait only what they would without it.
    public func delayed(_ delay: Delay, chance: Double) -> StubResponse {
        Self.checkChance(chance)
        if chance >= 1 { return delayed(delay) }
        var copy = self
        copy.delay = nil
        copy.chances.delay = .init(delay, chance: chance)
        return copy
    }

    /// Delivers the response on `profile` for the share `chance` of the requests it answers;
    /// the others go on the server's or session's network, if any.
    public func network(_ profile: NetworkProfile, chance: Double) -> StubResponse {
        Self.checkChance(chance)
        if chance >= 1 { return network(profile) }
        var copy = self
        copy.network = nil
        copy.chances.network = .init(profile, chance: chance)
        return copy
    }

    /// Answers with status `code` for the share `chance` of the requests it answers; the others
    /// get the response's own status.
    ///
    /// ```swift
    /// .file(photo).status(503, chance: 0.1)
    /// ```
    public func status(_ code: Int, chance: Double) -> StubResponse {
        Self.checkChance(chance)
        if chance >= 1 { return status(code) }
        var copy = self
        copy.chances.status = .init(code, chance: chance)
        return copy
    }

    /// Waits `duration` between the head and the body (MockWebServer's `bodyDelay`); the wait
    /// before the head is ``delayed(by:)`` (its `headersDelay`).
    public func bodyDelayed(by duration: Duration) -> StubResponse {
        var copy = self
        copy.bodyDelay = duration
        return copy
    }

    /// Sends these 1xx heads before the final one, such as `103 Early Hints`:
    ///
    /// ```swift
    /// .file(page).informational([InformationalHead(status: 103, headers: ["Link": "</hero.avif>; rel=preload; as=image"])])
    /// ```
    public func informational(_ heads: [InformationalHead]) -> StubResponse {
        var copy = self
        copy.informationalHeads = heads
        return copy
    }

    private static func checkChance(_ chance: Double) {
        precondition((0...1).contains(chance), "a chance is a share from 0 to 1, not \(chance)")
    }
}

extension Delay {
    /// `fixed` plus or minus up to `jitter`, uniformly (never below zero): Toxiproxy's
    /// latency toxic with its jitter.
    public static func jittered(_ fixed: Duration, by jitter: Duration) -> Delay {
        let low = Swift.max(.zero, fixed - jitter)
        return jitter > .zero ? .uniform(low...(fixed + jitter)) : .fixed(fixed)
    }
}
