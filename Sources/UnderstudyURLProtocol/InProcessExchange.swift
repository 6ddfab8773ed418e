import Foundation
import Understudy
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One URL-protocol request answered by the core's ``StubResponder``: it follows redirects (on
/// Linux) and carries out each answer's delivery plan on the protocol's client, closing each
/// hop's journal entry with what it managed.
struct InProcessExchange: Sendable {
    /// Redirect hops followed before failing with `URLError(.httpTooManyRedirects)`, as URLSession.
    static let maximumRedirects = 16

    let responder: StubResponder
    let options: StubbingOptions
    let channel: ClientChannel
    /// The session's URL cache, when the protocol must do its caching (see ``InProcessCache``).
    let cache: InProcessCache?

    init(registry: StubRegistry, options: StubbingOptions, channel: ClientChannel, cache: InProcessCache? = nil) {
        self.responder = StubResponder(
            registry: registry, transport: .inProcess, upstream: URLSessionUpstream.shared,
            unmatched: options.unmatched == .passThrough ? .forward(nil) : .notFound,
            network: options.network.map { NetworkSetting(base: $0) }
        )
        self.options = options
        self.channel = channel
        self.cache = cache
    }

    func run(_ urlRequest: URLRequest) async {
        if let cached = cache?.answersWithoutLoading {
            let response = UncheckedBox(cached)
            channel.send { $0.urlProtocol($1, didReceive: response.value.response, cacheStoragePolicy: .notAllowed) }
            channel.sendBody(cached.data)
            return channel.endBody()
        }
        if cache?.forbidsLoading == true {
            return fail(URLError(.resourceUnavailable, description: "returnCacheDataDontLoad: the URL cache holds nothing for \(urlRequest.url?.absoluteString ?? "")"))
        }
        var request = StubRequest(urlRequest)
        if let cache { request = cache.revalidating(request) }
        var previousID: Int?
        var hops = 0
        while true {
            let startTime = Date()
            let id = responder.open(request, redirectedFrom: previousID, httpVersion: .http1_1)
            let answer = await responder.answer(request)
            let prepared = answer.response
            switch answer.kind {
            case .unmatched where options.unmatched == .fail:
                responder.close(id, request: request, startTime: startTime, answer: answer, report: DeliveryReport(headSent: false, bodyBytesSent: 0, ending: .completed, httpVersion: .http1_1))
                return fail(URLError(.resourceUnavailable, description: NearMiss.report(for: request, nearMisses: answer.nearMisses)))
            case .forwarded(_, failure: let failure?):
                // Passed through to the network, which failed: the client sees the network's error.
                responder.close(id, request: request, startTime: startTime, answer: answer, report: DeliveryReport(headSent: false, bodyBytesSent: 0, ending: .completed, httpVersion: .http1_1))
                return fail(URLError(.cannotConnectToHost, description: "pass-through to \(request.url.absoluteString) failed: \(failure)"))
            case .stub where prepared.fault == nil && prepared.isFollowableRedirect:
                guard var next = Self.redirectedRequest(from: request, response: prepared) else { break }
                if options.loadingSystem.redirects == .reported {
                    return await reportRedirect(answer, for: request, to: next, id: id, startTime: startTime)
                }
                // corelibs: ask the session's delegate, as corelibs' own HTTP protocol does. A
                // refusal ends the task with the redirect itself, its body included.
                guard let redirectResponse = HTTPURLResponse(
                    url: request.url, statusCode: prepared.status, httpVersion: "HTTP/1.1", headerFields: prepared.headers.dictionary
                ) else { break }
                guard let decided = await channel.askDelegate(toRedirect: redirectResponse, to: next.urlRequest) else { break }
                next = StubRequest(decided)
                // The redirect's own delay still applies before the next hop.
                if prepared.delay > .zero {
                    do { try await Task.sleep(for: prepared.delay) } catch {
                        return close(id, request, startTime, answer, sent: 0, ending: .cancelled, headSent: false)
                    }
                }
                close(id, request, startTime, answer, sent: 0, ending: .completed)
                hops += 1
                if hops > Self.maximumRedirects {
                    return fail(URLError(.httpTooManyRedirects, description: "more than \(Self.maximumRedirects) redirects, the last to \(next.url.absoluteString)"))
                }
                previousID = id
                request = next
                continue
            default:
                break
            }
            await deliver(answer, for: request, id: id, startTime: startTime, cache: hops == 0 ? cache : nil)
            return
        }
    }

    // MARK: - Delivery

    private func deliver(_ answer: StubAnswer, for request: StubRequest, id: Int, startTime: Date, cache: InProcessCache?) async {
        let prepared = answer.response
        // A 304 to the cache's revalidation hands the caller the cached body instead.
        var cachedBody: Data?
        var storing: HTTPURLResponse?
        var sent = 0
        var headSent = false
        var timing = Interaction.Timing()
        var headTime: ContinuousClock.Instant?
        let clock = ContinuousClock(), started = clock.now
        var lastDeadline: ContinuousClock.Instant?
        func ended(_ ending: DeliveryReport.Ending) {
            if let headTime {
                timing.wait = headTime - started
                timing.receive = clock.now - headTime
            } else {
                timing.wait = clock.now - started
            }
            responder.close(id, request: request, startTime: startTime, answer: answer,
                            report: DeliveryReport(headSent: headSent, bodyBytesSent: sent, ending: ending, timing: timing, httpVersion: .http1_1))
        }
        let corelibs = options.loadingSystem == .corelibs
        /// The fault's failure, as a URLSession client meets it on the wire.
        func faultError(_ fault: Fault) -> URLError {
            URLError(fault.urlErrorCode(corelibs: corelibs), description: "Understudy injected the fault \(fault) (stub \"\(prepared.stubName ?? "")\")")
        }
        // The body bytes a connection's `limit-data` leaves this answer, if one is set.
        var dataLimit: Int?
        for action in prepared.deliveryPlan(method: request.method, requestBodyBytes: request.body?.count ?? 0) {
            guard !Task.isCancelled else { return ended(.cancelled) }
            switch action {
            case .wait(let duration) where duration.seconds >= request.timeoutInterval:
                // Silence as long as the request's timeout: URLSession gives up first.
                do { try await Task.sleep(for: .seconds(request.timeoutInterval)) } catch { return ended(.cancelled) }
                ended(.cancelled)
                return fail(URLError(.timedOut, description: "The request timed out: Understudy waited \(duration) (stub \"\(prepared.stubName ?? "")\")"))
            case .wait(let duration):
                // Counted from when the last wait was due (at most half a wait made up), as the
                // server's driver does, so late wake-ups do not slow a paced body below its rate.
                let now = clock.now
                let deadline = Swift.max(lastDeadline.map { $0 + duration } ?? now + duration, now + duration / 2)
                do { try await Task.sleep(until: deadline, clock: clock) } catch { return ended(.cancelled) }
                lastDeadline = deadline
                continue
            case .fail(let fault):
                if fault == .noResponse {
                    // Hold until the request's own timeout, as a silent server would.
                    do { try await Task.sleep(for: .seconds(request.timeoutInterval)) } catch { return ended(.cancelled) }
                }
                ended(.fault(fault))
                return fail(URLError(fault.urlErrorCode, description: "Understudy injected the fault \(fault) (stub \"\(prepared.stubName ?? "")\")"))
            case .sendHead:
                if let cache, prepared.status == 304, let (response, data) = cache.freshened(by: prepared) {
                    headSent = true
                    headTime = clock.now
                    cachedBody = data
                    let box = UncheckedBox(response)
                    let policy = cache.storagePolicy(for: response)
                    channel.send { $0.urlProtocol($1, didReceive: box.value, cacheStoragePolicy: policy) }
                    continue
                }
                guard let response = HTTPURLResponse(
                    url: request.url, statusCode: prepared.status, httpVersion: "HTTP/1.1",
                    headerFields: prepared.headers.dictionary
                ) else {
                    ended(.completed)
                    return fail(URLError(.badServerResponse, description: "cannot build a response for \(request.url)"))
                }
                headSent = true
                headTime = clock.now
                if cache != nil, request.method == "GET" { storing = response }
                let policy = cache?.storagePolicy(for: response) ?? .notAllowed
                channel.send { $0.urlProtocol($1, didReceive: response, cacheStoragePolicy: policy) }
            case .sendBody(let range):
                if let limit = dataLimit, sent + range.count > limit {
                    // No connection to count heads on: the limit cuts the body.
                    let cut = range.lowerBound..<(range.lowerBound + Swift.max(0, limit - sent))
                    sent += cut.count
                    if !cut.isEmpty { channel.sendBody(prepared.body.subdata(in: cut)) }
                    ended(.fault(prepared.fault ?? .limitData(limit)))
                    return fail(faultError(prepared.fault ?? .limitData(limit)))
                }
                sent += range.count
                channel.sendBody(prepared.body.subdata(in: range))
            case .sendInformational:
                // URLSession hands a client no 1xx head: the final one is all it sees.
                continue
            case .limitData(let bytes):
                dataLimit = bytes
            case .drop:
                let fault = prepared.fault ?? .disconnectAfterRequest
                ended(.fault(fault))
                return fail(faultError(fault))
            case .endConnection:
                // The answer is whole; what becomes of the connection after it has no
                // in-process counterpart, but the journal says the fault was there.
                ended(.fault(prepared.fault ?? .shutdownOutputAtEnd))
                if let cache, let storing, sent == prepared.body.count { cache.store(storing, body: prepared.body) }
                channel.endBody()
            case .end:
                // Journaled before the client hears the end, so an assertion made after the
                // response finds the entry complete.
                ended(.completed)
                if let cachedBody { channel.sendBody(cachedBody) }
                if let cache, let storing, sent == prepared.body.count { cache.store(storing, body: prepared.body) }
                channel.endBody()
            case .pause(let name):
                do { try await responder.registry.gate(name).pass(bytesSent: sent) } catch { return ended(.cancelled) }
                lastDeadline = nil
            case .abort:
                ended(.truncated(sent))
                fail(URLError(.networkConnectionLost, description: "Understudy truncated the body after \(sent) of \(prepared.body.count) bytes (stub \"\(prepared.stubName ?? "")\")"))
            }
        }
    }

    // MARK: - Helpers

    private func fail(_ error: any Error) {
        let error = UncheckedBox(error)
        channel.send { $0.urlProtocol($1, didFailWithError: error.value) }
    }

    private func close(
        _ id: Int, _ request: StubRequest, _ startTime: Date, _ answer: StubAnswer, sent: Int, ending: DeliveryReport.Ending,
        headSent: Bool = true
    ) {
        responder.close(id, request: request, startTime: startTime, answer: answer,
                        report: DeliveryReport(headSent: headSent, bodyBytesSent: sent, ending: ending, httpVersion: .http1_1))
    }

    // MARK: - Redirects

    /// Apple platforms: tell URLSession of the redirect, then deliver the redirect itself. If
    /// the session follows it, it stops this load (and this protocol's later calls are dropped)
    /// and asks the stubs again for the next URL; if its delegate refuses, the task ends with
    /// the 3xx response and its body, as URLSession documents and does for the network (ending
    /// the load with a cancellation error instead would meet a refusing delegate as a failure).
    private func reportRedirect(_ answer: StubAnswer, for request: StubRequest, to next: StubRequest, id: Int, startTime: Date) async {
        let prepared = answer.response
        if prepared.delay > .zero {
            do { try await Task.sleep(for: prepared.delay) } catch {
                return close(id, request, startTime, answer, sent: 0, ending: .cancelled, headSent: false)
            }
        }
        guard let response = HTTPURLResponse(url: request.url, statusCode: prepared.status, httpVersion: "HTTP/1.1", headerFields: prepared.headers.dictionary) else { return }
        let urlRequest = next.urlRequest
        close(id, request, startTime, answer, sent: prepared.body.count, ending: .completed)
        channel.send { [urlRequest] in $0.urlProtocol($1, wasRedirectedTo: urlRequest, redirectResponse: response) }
        channel.send { $0.urlProtocol($1, didReceive: response, cacheStoragePolicy: .notAllowed) }
        channel.sendBody(prepared.body)
        channel.endBody()
    }

    /// The request a client makes after `response`: URLSession's rules (301/302/303 turn POST
    /// into GET and drop the body; 303 turns every method but HEAD into GET; 307/308 keep both),
    /// with a relative `Location` resolved against the current URL.
    static func redirectedRequest(from request: StubRequest, response: PreparedResponse) -> StubRequest? {
        guard let location = response.headers["Location"],
              let target = URL(string: location, relativeTo: request.url)?.absoluteURL
        else { return nil }
        var method = request.method
        var body = request.body
        var headers = request.headers
        let becomesGet: Bool
        switch response.status {
        case 301, 302: becomesGet = method == "POST"
        case 303: becomesGet = method != "HEAD" && method != "GET"
        default: becomesGet = false
        }
        if becomesGet {
            method = "GET"
            body = nil
            for name in ["Content-Type", "Content-Length", "Content-Encoding"] { headers.remove(name) }
        }
        if target.host?.lowercased() != request.host {
            headers.remove("Authorization")
        }
        headers.remove("Host")
        return StubRequest(method: method, url: target, headers: headers, body: body, timeoutInterval: request.timeoutInterval)
    }
}

extension URLError {
    init(_ code: URLError.Code, description: String) {
        self.init(code, userInfo: [NSLocalizedDescriptionKey: description])
    }
}
