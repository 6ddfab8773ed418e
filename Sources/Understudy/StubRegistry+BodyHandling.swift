import Foundation

extension StubRegistry {
    /// How a request's body is taken, decided on its head before the body is read: what the
    /// stub the head matches says. A server asks only of requests with a body to come.
    package struct BodyHandling: Sendable, Equatable {
        /// The answer to `Expect: 100-continue`; `nil` for `100 Continue`.
        package var expectContinue: ExpectContinue?
        /// How many bytes of the body are read before the connection is dropped
        /// (``Fault/disconnectDuringRequestBody(after:)``), `nil` to read it all. A fault left
        /// to chance is drawn only once the request is whole, and so cuts it after it is read.
        package var cutAfter: Int?

        /// A `100 Continue` when asked, and the whole body read.
        package static let standard = BodyHandling()

        package init(expectContinue: ExpectContinue? = nil, cutAfter: Int? = nil) {
            self.expectContinue = expectContinue
            self.cutAfter = cutAfter
        }

        /// What `response` says.
        init(of response: StubResponse) {
            expectContinue = response.expectContinuePolicy
            if case .disconnectDuringRequestBody(let bytes) = response.phaseFault { cutAfter = max(0, bytes) }
        }

        var isDefault: Bool { self == .standard }
    }

    /// How the body of `request`, whose head alone is in, is taken: as the stub that head
    /// matches says, without counting a use or stepping a scenario (the request is matched
    /// again once whole). ``BodyHandling/standard`` when no stub says anything, or the stub
    /// answers with a closure.
    package func bodyHandling(forHead request: @autoclosure () -> StubRequest) -> BodyHandling {
        state.withLock { state in
            if state.index == nil {
                state.index = StubIndex(entries: state.entries.values)
            }
            guard state.index!.handlesBodiesOnHead, let entry = state.entry(answering: request()) else { return .standard }
            switch entry.stub.answer {
            case .response(let response): return BodyHandling(of: response)
            case .sequence(let responses): return BodyHandling(of: responses[min(entry.uses, responses.count - 1)])
            case .handler: return .standard
            }
        }
    }
}

extension Stub {
    /// The responses it can give without running a closure.
    var fixedResponses: [StubResponse] {
        switch answer {
        case .response(let response): [response]
        case .sequence(let responses): responses
        case .handler: []
        }
    }
}
