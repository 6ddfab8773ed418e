import Foundation

/// What the core decided to answer a request with, for a transport to deliver: the prepared
/// response and what kind of answer it is, which together say how the journal records it.
package struct StubAnswer: Sendable {
    /// The kinds of answer, each journaled its own way.
    package enum Kind: Sendable {
        /// A stub's response.
        case stub
        /// The stub failed to render (unreadable file, throwing closure, failed upstream): the
        /// response is a 500 or 502 saying why.
        case failed(String)
        /// No stub matched: the response is the 404 report naming the nearest stubs.
        case unmatched([NearMiss])
        /// No stub matched and the request went upstream (pass-through, `--proxy-unmatched`);
        /// `failure` says why the upstream could not answer (the response is then a 502).
        case forwarded([NearMiss], failure: String?)
        /// The transport refused the request before any stub saw it (400, 408, 413, 431, 501).
        case refused(String)
    }

    /// The response to deliver.
    package var response: PreparedResponse
    /// What kind of answer it is.
    package var kind: Kind

    package init(response: PreparedResponse, kind: Kind) {
        self.response = response
        self.kind = kind
    }

    /// The answer to an unmatched request: 404 with the near-miss report as text (a line of
    /// its own, so that it reads well in a terminal).
    /// - Parameter note: a last line for the transport to add, e.g. where its dashboard is.
    package static func unmatched(_ request: StubRequest, nearMisses: [NearMiss], note: String? = nil) -> StubAnswer {
        var text = NearMiss.report(for: request, nearMisses: nearMisses) + "\n"
        if let note { text += note + "\n" }
        return StubAnswer(response: .text(status: 404, text), kind: .unmatched(nearMisses))
    }

    /// A refusal by the transport: `status` with `message` as a line of text, closing the
    /// connection; with `silently`, the connection closes without an answer instead.
    package static func refused(status: Int, _ message: String, silently: Bool = false) -> StubAnswer {
        var response = PreparedResponse.text(status: status, message + "\n")
        response.headers["Connection"] = "close"
        if silently { response.fault = .emptyResponse }
        return StubAnswer(response: response, kind: .refused(message))
    }

    /// The near misses of an unmatched request, answered or forwarded.
    package var nearMisses: [NearMiss] {
        switch kind {
        case .unmatched(let misses), .forwarded(let misses, _): return misses
        case .stub, .failed, .refused: return []
        }
    }

    /// The journal's record of this answer, delivered as far as `delivery` says: the one place
    /// an outcome is derived from what the stub decided and what the transport managed.
    ///
    /// Without the body sent, which only a journal keeping bodies asks for (``sentBody(_:)``).
    package func result(_ delivery: DeliveryReport) -> InteractionResult {
        let outcome: Interaction.Outcome
        switch (delivery.ending, kind) {
        case (.cancelled, _): outcome = .cancelled
        // However a refusal went out (answered, or closed without a word), its reason is the outcome.
        case (_, .refused(let message)): outcome = .failed(message)
        case (.fault(let fault), _): outcome = .fault(fault)
        case (.truncated(let bytes), _): outcome = .truncated(bytes: bytes)
        case (.completed, .stub), (.completed, .forwarded(_, failure: nil)): outcome = .completed
        case (.completed, .failed(let message)), (.completed, .forwarded(_, failure: let message?)): outcome = .failed(message)
        case (.completed, .unmatched): outcome = .unmatched
        }
        let transport: Interaction.Transport?
        if case .forwarded = kind { transport = .proxy } else { transport = nil }
        return InteractionResult(
            stubName: response.stubName,
            status: delivery.headSent ? response.status : nil,
            headers: delivery.headSent ? response.headers : [:],
            bodyBytesSent: delivery.bodyBytesSent,
            responseBody: nil,
            outcome: outcome,
            nearMisses: nearMisses,
            transport: transport,
            timing: delivery.timing,
            renderID: response.renderID,
            httpVersion: delivery.httpVersion,
            connection: delivery.connection,
            network: response.network,
            scenario: response.scenarioStep,
            drawn: response.drawn
        )
    }
}

extension StubAnswer {
    /// The body bytes `delivery` sent, if any.
    package func sentBody(_ delivery: DeliveryReport) -> Data? {
        delivery.bodyBytesSent > 0 ? response.body.prefix(delivery.bodyBytesSent) : nil
    }
}

/// How far a transport got delivering a ``StubAnswer``.
package struct DeliveryReport: Sendable {
    /// How the delivery ended.
    package enum Ending: Sendable, Equatable {
        /// Every byte the plan holds was handed to the client.
        case completed
        /// A fault was carried out.
        case fault(Fault)
        /// The body was cut after this many bytes (`truncated(after:)`).
        case truncated(Int)
        /// The client went away (or the task was cancelled) first.
        case cancelled
    }

    /// Whether the status line and headers reached the client.
    package var headSent: Bool
    /// Body bytes handed to the client.
    package var bodyBytesSent: Int
    /// How it ended.
    package var ending: Ending
    /// When the phases happened, for HAR timings.
    package var timing: Interaction.Timing
    /// `HTTP/1.1` or `HTTP/2`: what the exchange went over.
    package var httpVersion: Interaction.HTTPVersion
    /// The server connection it went over, if it did.
    package var connection: ConnectionFacts?

    package init(
        headSent: Bool, bodyBytesSent: Int, ending: Ending, timing: Interaction.Timing = Interaction.Timing(), httpVersion: Interaction.HTTPVersion,
        connection: ConnectionFacts? = nil
    ) {
        self.httpVersion = httpVersion
        self.connection = connection
        self.headSent = headSent
        self.bodyBytesSent = bodyBytesSent
        self.ending = ending
        self.timing = timing
    }
}
