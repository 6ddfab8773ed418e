import Foundation
import Understudy
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Answers one URL-protocol request from the registry: matches, follows redirects (on Linux),
/// and carries out the response's delivery plan on the protocol's client, journaling each hop.
struct StubLoader: Sendable {
    /// Redirect hops followed before failing with `URLError(.httpTooManyRedirects)`, as URLSession.
    static let maximumRedirects = 16

    let registry: StubRegistry
    let options: StubbingOptions
    let channel: ClientChannel

    private var context: RenderContext {
        RenderContext(upstream: URLSessionUpstream.shared)
    }

    func run(_ urlRequest: URLRequest) async {
        var request = StubRequest(urlRequest)
        var previousID: Int?
        var hops = 0
        while true {
            let id = registry.journal.begin(request, transport: .inProcess, redirectedFrom: previousID)
            let resolution = await registry.resolve(request, context: context)
            let prepared: PreparedResponse
            var failure: String?
            switch resolution {
            case .unmatched(let nearMisses):
                await answerUnmatched(request, id: id, nearMisses: nearMisses)
                return
            case .failed(let response, let message):
                prepared = response
                failure = message
            case .response(let response):
                prepared = response
            }

            if failure == nil, prepared.fault == nil, prepared.isFollowableRedirect,
               let next = Self.redirectedRequest(from: request, response: prepared)
            {
                #if !canImport(FoundationNetworking)
                // Apple's URLSession follows redirects itself when told of them.
                return await reportRedirect(prepared, for: request, to: next, id: id)
                #endif
                // The redirect's own delay still applies before the next hop.
                if prepared.delay > .zero {
                    do { try await Task.sleep(for: prepared.delay) } catch {
                        return finish(id, prepared, sent: 0, outcome: .cancelled)
                    }
                }
                finish(id, prepared, sent: 0, outcome: .completed)
                hops += 1
                if hops > Self.maximumRedirects {
                    return fail(URLError(.httpTooManyRedirects, description: "more than \(Self.maximumRedirects) redirects, the last to \(next.url.absoluteString)"))
                }
                previousID = id
                request = next
                continue
            }
            await deliver(prepared, for: request, id: id, failure: failure)
            return
        }
    }

    // MARK: - Delivery

    /// - Parameter unmatched: the near misses when this is the 404 for an unmatched request, so
    ///   the entry is completed as unmatched before the client has its response.
    private func deliver(
        _ prepared: PreparedResponse, for request: StubRequest, id: Int, failure: String?, transport: Interaction.Transport? = nil,
        unmatched: [NearMiss]? = nil
    ) async {
        var sent = 0
        var headSent = false
        for action in prepared.deliveryPlan(method: request.method) {
            guard !Task.isCancelled else {
                return finish(id, prepared, sent: sent, outcome: .cancelled, headSent: headSent)
            }
            switch action {
            case .wait(let duration):
                do { try await Task.sleep(for: duration) } catch {
                    return finish(id, prepared, sent: sent, outcome: .cancelled, headSent: headSent)
                }
            case .fail(let fault):
                if fault == .noResponse {
                    // Hold until the request's own timeout, as a silent server would.
                    do { try await Task.sleep(for: .seconds(request.timeoutInterval)) } catch {
                        return finish(id, prepared, sent: 0, outcome: .cancelled, headSent: false)
                    }
                }
                finish(id, prepared, sent: 0, outcome: .fault(fault), headSent: false)
                return fail(URLError(fault.urlErrorCode, description: "Understudy injected the fault \(fault) (stub \"\(prepared.stubName ?? "")\")"))
            case .sendHead:
                guard let response = HTTPURLResponse(
                    url: request.url, statusCode: prepared.status, httpVersion: "HTTP/1.1",
                    headerFields: prepared.headers.dictionary
                ) else {
                    finish(id, prepared, sent: 0, outcome: .failed("cannot build a response for \(request.url)"), headSent: false)
                    return fail(URLError(.badServerResponse))
                }
                headSent = true
                channel.send { $0.urlProtocol($1, didReceive: response, cacheStoragePolicy: .notAllowed) }
            case .sendBody(let range):
                sent += range.count
                channel.sendBody(prepared.body.subdata(in: range))
            case .finish:
                // Journaled before the client hears the end, so an assertion made after the
                // response finds the entry complete.
                let outcome: Interaction.Outcome = unmatched != nil ? .unmatched : failure.map { .failed($0) } ?? .completed
                finish(id, prepared, sent: sent, outcome: outcome, transport: transport, nearMisses: unmatched ?? [])
                channel.finish()
            case .abort:
                finish(id, prepared, sent: sent, outcome: .truncated(bytes: sent))
                fail(URLError(.networkConnectionLost, description: "Understudy truncated the body after \(sent) of \(prepared.body.count) bytes (stub \"\(prepared.stubName ?? "")\")"))
            }
        }
    }

    private func answerUnmatched(_ request: StubRequest, id: Int, nearMisses: [NearMiss]) async {
        let report = NearMiss.report(for: request, nearMisses: nearMisses)
        switch options.unmatched {
        case .fail:
            registry.journal.finish(id, with: InteractionResult(stubName: nil, status: nil, outcome: .unmatched, nearMisses: nearMisses))
            fail(URLError(.resourceUnavailable, description: report))
        case .notFound:
            let body = Data(report.utf8)
            let prepared = PreparedResponse(
                status: 404,
                headers: ["Content-Type": "text/plain; charset=utf-8", "Content-Length": String(body.count)],
                body: body
            )
            registry.journal.finish(id, with: InteractionResult(stubName: nil, status: 404, outcome: .unmatched, nearMisses: nearMisses))
            await deliver(prepared, for: request, id: id, failure: nil, transport: nil, unmatched: nearMisses)
        case .passThrough:
            do {
                let upstream = try await URLSessionUpstream.shared.fetch(request)
                var headers = upstream.headers
                headers["Content-Length"] = String(upstream.body.count)
                headers.remove("Transfer-Encoding")
                headers.remove("Content-Encoding")
                let prepared = PreparedResponse(status: upstream.status, headers: headers, body: upstream.body)
                await deliver(prepared, for: request, id: id, failure: nil, transport: .proxy)
            } catch {
                registry.journal.finish(id, with: InteractionResult(stubName: nil, status: nil, outcome: .failed("pass-through failed: \(error)"), transport: .proxy))
                fail(error as? URLError ?? URLError(.cannotConnectToHost, description: "pass-through to \(request.url.absoluteString) failed: \(error)"))
            }
        }
    }

    // MARK: - Helpers

    private func fail(_ error: any Error) {
        let error = UncheckedBox(error)
        channel.send { $0.urlProtocol($1, didFailWithError: error.value) }
    }

    private func finish(
        _ id: Int, _ prepared: PreparedResponse, sent: Int, outcome: Interaction.Outcome,
        headSent: Bool = true, transport: Interaction.Transport? = nil, nearMisses: [NearMiss] = []
    ) {
        registry.journal.finish(id, with: InteractionResult(
            stubName: prepared.stubName, status: headSent ? prepared.status : nil,
            headers: headSent ? prepared.headers : [:], bodyBytesSent: sent, outcome: outcome, nearMisses: nearMisses,
            transport: transport, responseBody: prepared.body.prefix(sent)
        ))
    }

    // MARK: - Redirects

    #if !canImport(FoundationNetworking)
    /// Apple platforms: tell URLSession of the redirect and let it ask the stubs again. (corelibs
    /// crashes on this callback, so on Linux the loader follows redirects itself.)
    private func reportRedirect(_ prepared: PreparedResponse, for request: StubRequest, to next: StubRequest, id: Int) async {
        if prepared.delay > .zero {
            do { try await Task.sleep(for: prepared.delay) } catch {
                return finish(id, prepared, sent: 0, outcome: .cancelled)
            }
        }
        guard let response = HTTPURLResponse(url: request.url, statusCode: prepared.status, httpVersion: "HTTP/1.1", headerFields: prepared.headers.dictionary) else { return }
        var urlRequest = URLRequest(url: next.url)
        urlRequest.httpMethod = next.method
        urlRequest.httpBody = next.body
        for field in next.headers { urlRequest.addValue(field.value, forHTTPHeaderField: field.name) }
        finish(id, prepared, sent: 0, outcome: .completed)
        channel.send { $0.urlProtocol($1, wasRedirectedTo: urlRequest, redirectResponse: response) }
        channel.send { $0.urlProtocolDidFinishLoading($1) }
    }
    #endif

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
