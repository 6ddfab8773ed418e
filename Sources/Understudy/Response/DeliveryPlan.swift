/// One step of delivering a ``PreparedResponse``.
package enum DeliveryAction: Sendable, Hashable {
    /// Wait this long (on a timer; never a blocking sleep).
    case wait(Duration)
    /// Inject the fault before any byte of the response.
    case fail(Fault)
    /// Send the 1xx head at this index of ``PreparedResponse/informational``, before the delay
    /// and the final head (on HTTP/2 a HEADERS frame of its own, without END_STREAM).
    case sendInformational(Int)
    /// Send the status line and headers.
    case sendHead
    /// Send these bytes of the body.
    case sendBody(Range<Int>)
    /// The response is complete; close the connection afterwards when `close` is true.
    case end(close: Bool)
    /// Drop the connection after a partial body (truncation).
    case abort
    /// End the exchange here for the response's phase fault, whatever was sent: close the
    /// connection, with a TCP RST when `reset` (on HTTP/2, reset the stream: RST_STREAM).
    case drop(reset: Bool)
    /// The response is complete; the connection then ends as the phase fault says (HTTP/1.1
    /// only: on HTTP/2 these end the stream normally).
    case endConnection(ConnectionEnding)
    /// From here on the connection carries at most this many bytes in all, heads included,
    /// across this and later answers, then closes (a limit already set on it stays).
    case limitData(Int)
    /// Push out what was sent, then hold the body until the gate named this opens (see
    /// ``BodyPause``); the request stays in flight meanwhile.
    case pause(gate: String)
}

/// How a connection ends after a complete response, for the phase faults that end it.
package enum ConnectionEnding: Sendable, Hashable {
    /// Stop reading: a next request on the connection is never answered.
    case shutdownInput
    /// Close the server's half (a FIN): no next request can be sent on it.
    case shutdownOutput
    /// Hold the close this long (the answer says `Connection: close`), then close.
    case slowClose(Duration)
}

/// The delivery of a response as a pure state machine: the order of waits, bytes and faults,
/// with no clock and no socket, so the transports only carry the actions out.
///
/// The body is paced in slices of at most 16 KB, each sent after waiting the time the link
/// would take to carry it, so no second sees more than the rate plus one slice: at `b` bytes
/// per second, a stub's own `bandwidth` or a network profile's rate alike, a slice is
/// `min(16,000, max(1, b))` bytes, at most a second apart (see ``sliceSize(at:)``). A body in pieces
/// (``PreparedResponse/pieces``) stops at each cut and waits the interval before the next piece.
///
/// A phase fault (``Fault/replacesAnswer`` false) becomes the steps of its phase: a `drop`
/// where the exchange breaks, an `endConnection` after a whole answer, a `limitData` before it.
package struct DeliveryPlan: Sendable, Sequence, IteratorProtocol {
    /// The longest pause between two slices of a throttled body.
    package static let maximumSliceInterval: Duration = .seconds(1)
    /// The largest slice of a throttled body: the most it sends at once beyond its rate.
    package static let maximumSliceSize = 16_000

    /// The slice size at `bandwidth`: ``maximumSliceSize``, or a second's bytes when the rate is
    /// lower. Shorter slices would be smoother, but every slice is a timer and a write, and a
    /// server pacing many slow clients at once spends its time on them (Benchmarks/README.md,
    /// "Pacing and images", has what slices a tenth of a second long cost).
    package static func sliceSize(at bandwidth: Bandwidth) -> Int {
        Swift.min(maximumSliceSize, Swift.max(1, bandwidth.bytesPerSecond))
    }

    private enum Stage: Sendable {
        case delay, fault, timedOut, informational(Int), head, bodyDelay, body(offset: Int, waited: Bool), done
    }

    private let response: PreparedResponse
    /// The number of body bytes this plan sends.
    package let bodyBytesToSend: Int
    private let isTruncating: Bool
    /// Where a phase fault cuts the body, and whether with a reset.
    private let faultCut: (bytes: Int, reset: Bool)?
    /// Whether the request's body is longer than ``Fault/disconnectDuringRequestBody(after:)`` allows.
    private let requestBodyCut: Bool
    /// How the body is paced: its rate and slice size, or `nil` for a body sent at once.
    private let pacing: (bandwidth: Bandwidth, sliceSize: Int)?
    private var stage: Stage = .informational(0)
    /// Whether the body's pause (if it has one) is behind it.
    private var pausePassed = false
    /// The index of the next cut of ``PreparedResponse/pieces`` not yet passed.
    private var nextCut = 0

    init(response: PreparedResponse, sendsBody: Bool, requestBodyBytes: Int = 0) {
        self.response = response
        let bodySize = response.body.count
        switch response.fault {
        case .disconnectDuringResponseBody(let bytes): faultCut = (Swift.max(0, bytes), false)
        case .resetDuringResponseBody(let bytes): faultCut = (Swift.max(0, bytes), true)
        default: faultCut = nil
        }
        if case .disconnectDuringRequestBody(let bytes) = response.fault {
            requestBodyCut = requestBodyBytes > bytes
        } else {
            requestBodyCut = false
        }
        let cut = Swift.min(response.truncateAfter ?? .max, faultCut?.bytes ?? .max)
        bodyBytesToSend = sendsBody ? Swift.min(bodySize, cut) : 0
        isTruncating = sendsBody && (response.truncateAfter.map { $0 < bodySize } ?? false)
        pacing = response.bandwidth.map { bandwidth in (bandwidth, Self.sliceSize(at: bandwidth)) }
    }

    /// Whether the answer's head must say `Connection: close`: the connection's close is part
    /// of the fault (``Fault/slowClose(_:)``).
    package var announcesClose: Bool {
        if case .slowClose = response.fault { return true }
        return false
    }

    package mutating func next() -> DeliveryAction? {
        switch stage {
        case .delay:
            stage = .fault
            if response.delay > .zero { return .wait(response.delay) }
            return next()
        case .fault:
            stage = .head
            guard let fault = response.fault else { return next() }
            if fault.replacesAnswer {
                stage = .done
                return .fail(fault)
            }
            switch fault {
            case .disconnectAfterRequest:
                stage = .done
                return .drop(reset: false)
            case .disconnectDuringRequestBody where requestBodyCut:
                // The body was still arriving: closing with bytes unread resets the connection.
                stage = .done
                return .drop(reset: true)
            case .timeout(let after):
                stage = .timedOut
                return after > .zero ? .wait(after) : next()
            case .limitData(let bytes):
                return .limitData(bytes)
            default:
                return next()
            }
        case .timedOut:
            stage = .done
            return .drop(reset: false)
        case .informational(let index):
            // Before the delay: an early hint leaves while the final answer is still coming.
            guard index < response.informational.count else {
                stage = .delay
                return next()
            }
            stage = .informational(index + 1)
            return .sendInformational(index)
        case .head:
            stage = .bodyDelay
            return .sendHead
        case .bodyDelay:
            stage = .body(offset: 0, waited: false)
            // Only before a body: a body delay with nothing after it delays nothing.
            if response.bodyDelay > .zero, bodyBytesToSend > 0 { return .wait(response.bodyDelay) }
            return next()
        case .body(let offset, let waited):
            let end = bodyBytesToSend
            // A pause holds a body that goes on past it, right after its `afterBytes`.
            var stop = end
            if let pause = response.pause, !pausePassed, pause.afterBytes < end {
                if offset == pause.afterBytes {
                    pausePassed = true
                    return .pause(gate: pause.gate)
                }
                stop = pause.afterBytes
            }
            if let pieces = response.pieces {
                while nextCut < pieces.offsets.count, pieces.offsets[nextCut] < offset { nextCut += 1 }
                if nextCut < pieces.offsets.count, pieces.offsets[nextCut] < end {
                    let cut = pieces.offsets[nextCut]
                    if offset == cut {
                        // A piece is out: the interval before the next (a wait pushes it out first).
                        nextCut += 1
                        if pieces.interval > .zero { return .wait(pieces.interval) }
                        return next()
                    }
                    stop = Swift.min(stop, cut)
                }
            }
            guard offset < end else {
                stage = .done
                if let faultCut { return .drop(reset: faultCut.reset) }
                if isTruncating { return .abort }
                switch response.fault {
                case .shutdownInputAtEnd: return .endConnection(.shutdownInput)
                case .shutdownOutputAtEnd: return .endConnection(.shutdownOutput)
                case .slowClose(let duration): return .endConnection(.slowClose(duration))
                default: return .end(close: response.truncateAfter != nil)
                }
            }
            guard let (bandwidth, sliceSize) = pacing else {
                stage = .body(offset: stop, waited: false)
                return .sendBody(offset..<stop)
            }
            let upper = Swift.min(stop, offset + sliceSize)
            if !waited {
                stage = .body(offset: offset, waited: true)
                return .wait(.nanoseconds(Int64(upper - offset) * 1_000_000_000 / Int64(bandwidth.bytesPerSecond)))
            }
            stage = .body(offset: upper, waited: false)
            return .sendBody(offset..<upper)
        case .done:
            return nil
        }
    }
}
