import Foundation
import Understudy
import UnderstudyImages
import UnderstudySupport

/// Records a reverse-proxy session to a HAR file: `understudy record` in a library.
///
/// The ``registry`` forwards every request to the upstream and keeps full bodies; call
/// ``interactionFinished()`` after each interaction (the server's `onInteraction`) and the file
/// is rewritten in the background, atomically (a temporary file, then a rename), so it is
/// always complete and valid; ``flush()`` writes it at once, e.g. on SIGINT.
/// The HAR holds the upstream's URLs, and secrets are redacted as ``HARRedaction`` says.
///
/// ```swift
/// let recorder = HARRecorder(upstream: URL(string: "http://127.0.0.1:8081")!, output: harURL)
/// let server = try await StubServer.start(serving: recorder.registry, configuration: .init(
///     onInteraction: { _ in recorder.interactionFinished() }))
/// ```
public final class HARRecorder: Sendable {
    /// The stubs served: for a recording proxy, one catch-all that forwards to the upstream.
    public let registry: StubRegistry
    /// Where requests go, for a recording proxy; recorded URLs are rewritten onto it.
    public let upstream: URL?
    /// The HAR file written.
    public let output: URL
    /// The values hidden.
    public let redaction: HARRedaction

    private let queue = DispatchQueue(label: "understudy.har-recorder")
    private let onWriteError: (@Sendable (any Error) -> Void)?
    /// Whether a rewrite is scheduled and not yet started.
    private let pending = LockedState(false)
    /// Whether this records a proxy, whose own `X-Understudy-Stub` marker is not the upstream's.
    private let isProxy: Bool

    /// Creates a recording reverse proxy to `upstream`.
    /// - Parameters:
    ///   - upstream: the upstream's scheme, host and port (and base path).
    ///   - output: the HAR file to write.
    ///   - redaction: the header values to hide.
    ///   - onWriteError: told when a background rewrite of the file fails.
    public convenience init(upstream: URL, output: URL, redaction: HARRedaction = HARRedaction(), onWriteError: (@Sendable (any Error) -> Void)? = nil) {
        let registry = StubRegistry()
        registry.stub(.any, named: "record", response: .forward(to: upstream))
        self.init(registry: registry, upstream: upstream, output: output, redaction: redaction, onWriteError: onWriteError)
    }

    /// Creates a recording forward proxy: every request a client sends through it (plain
    /// `http://` ones, and `https://` ones inside intercepted `CONNECT`s) goes to its own URL.
    /// - Parameters:
    ///   - output: the HAR file to write.
    ///   - redaction: the header values to hide.
    ///   - onWriteError: told when a background rewrite of the file fails.
    public convenience init(forwardProxyTo output: URL, redaction: HARRedaction = HARRedaction(), onWriteError: (@Sendable (any Error) -> Void)? = nil) {
        let registry = StubRegistry()
        registry.stub(.any, named: "record", response: .forward())
        self.init(registry: registry, upstream: nil, output: output, redaction: redaction, onWriteError: onWriteError, isProxy: true)
    }

    /// Records the journal of any registry (`understudy serve --record`); turns on
    /// `Journal.keepsBodies`.
    /// - Parameters:
    ///   - registry: the stubs whose journal is written.
    ///   - upstream: when set, recorded URLs are rewritten onto it.
    ///   - output: the HAR file to write.
    ///   - redaction: the header values to hide.
    ///   - onWriteError: told when a background rewrite of the file fails.
    public convenience init(registry: StubRegistry, upstream: URL? = nil, output: URL, redaction: HARRedaction = HARRedaction(),
                            onWriteError: (@Sendable (any Error) -> Void)? = nil) {
        self.init(registry: registry, upstream: upstream, output: output, redaction: redaction, onWriteError: onWriteError, isProxy: false)
    }

    private init(registry: StubRegistry, upstream: URL?, output: URL, redaction: HARRedaction,
                 onWriteError: (@Sendable (any Error) -> Void)?, isProxy: Bool) {
        self.isProxy = isProxy
        self.registry = registry
        self.upstream = upstream
        self.output = output
        self.redaction = redaction
        self.onWriteError = onWriteError
        registry.journal.keepsBodies = true
    }

    /// The HAR of the finished interactions so far: secrets redacted, and for a proxy the upstream's URLs.
    ///
    /// Interactions still in flight and those cut off on the client's side (`cancelled`: the
    /// client went away, or the recorder stopped, before it had the whole response) are left
    /// out: their bodies are partial or missing and replaying them would serve what no client saw.
    public func document() -> HARDocument {
        let finished = registry.journal.interactions.filter { $0.outcome != .inFlight && $0.outcome != .cancelled }
        var document = HARDocument(interactions: finished)
        document.log.entries = document.log.entries.map { entry in
            var entry = redaction.apply(to: entry)
            if let upstream, let url = URL(string: entry.request.url) {
                entry.request.url = Self.upstreamURL(for: url, upstream: upstream).absoluteString
            }
            if upstream != nil || isProxy {
                // The proxy's own marker is not part of what the upstream said.
                entry.response.headers.removeAll { $0.name.lowercased() == "x-understudy-stub" }
            }
            return entry
        }
        return document
    }

    /// Schedules a rewrite of the file; rewrites requested while one is pending are merged.
    public func interactionFinished() {
        let alreadyPending = pending.withLock { flag in
            defer { flag = true }
            return flag
        }
        guard !alreadyPending else { return }
        queue.async { [self] in
            pending.withLock { $0 = false }
            do {
                try write()
            } catch {
                onWriteError?(error)
            }
        }
    }

    /// Writes the file now, after any rewrite already scheduled.
    public func flush() throws {
        try queue.sync { try write() }
    }

    private func write() throws {
        try document().write(to: output)
    }

    /// `url` (as the recorder saw it) on the upstream: scheme, host and port replaced, the
    /// upstream's base path put in front.
    static func upstreamURL(for url: URL, upstream: URL) -> URL {
        url.rebased(onto: upstream)
    }
}
