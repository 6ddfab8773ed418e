import Foundation
import Understudy

extension StubRegistry {
    /// Adds a stub for each distinct recorded request of a HAR file; see ``load(har:name:matching:)-(HARDocument,_,_)``.
    /// - Parameters:
    ///   - url: the HAR file.
    ///   - key: what makes recorded requests the same.
    /// - Returns: the names of the stubs added.
    @discardableResult
    public func load(har url: URL, matching key: HARMatchKey = .default) throws -> [String] {
        let document = try HARDocument(contentsOf: url)
        return load(har: document, name: url.deletingPathExtension().lastPathComponent, matching: key)
    }

    /// Adds a stub for each distinct recorded request of a HAR document's bytes.
    /// - Parameters:
    ///   - data: the HAR document, as JSON.
    ///   - name: the prefix of the stubs' names.
    ///   - key: what makes recorded requests the same.
    /// - Returns: the names of the stubs added.
    @discardableResult
    public func load(har data: Data, name: String = "har", matching key: HARMatchKey = .default) throws -> [String] {
        load(har: try HARDocument(data: data), name: name, matching: key)
    }

    /// Adds a stub for each distinct recorded request: requests with equal `key` share one
    /// stub whose responses are the recorded ones in order, the last repeating.
    ///
    /// Statuses, bodies (byte for byte) and headers replay as recorded, except hop-by-hop
    /// headers, HTTP/2 pseudo-headers (`:status`), `Content-Length` (recomputed) and
    /// `Content-Encoding` (HAR bodies are decoded). Recorded request pseudo-headers
    /// (`:authority`, `:path`, ... in a browser's HTTP/2 HAR) play no part in matching unless
    /// named in the key.
    /// Entries without a response (status 0) replay their recorded fault, or an empty response.
    /// Stubs are named `NAME-1`, `NAME-2`, ... in order of first appearance; a stub whose
    /// query has more parameters wins over one with fewer. A request recorded without a header
    /// of the key (say, no `Accept`) answers requests with any value of it, except those that
    /// match a request recorded with that value.
    ///
    /// ```swift
    /// let stubs = StubRegistry()
    /// try stubs.load(har: URL(fileURLWithPath: "session.har"))
    /// ```
    /// - Parameters:
    ///   - document: the HAR.
    ///   - name: the stubs' name prefix.
    ///   - key: what makes recorded requests the same.
    /// - Returns: the names of the stubs added.
    @discardableResult
    public func load(har document: HARDocument, name: String = "har", matching key: HARMatchKey = .default) -> [String] {
        let stubs = HARReplay.stubs(for: document, name: name, matching: key)
        add(stubs)
        return stubs.map(\.name)
    }
}

/// HAR entries turned into stubs.
enum HARReplay {
    /// Headers that describe one connection or the recorded framing, never replayed.
    static let droppedHeaders: Set<String> = HeaderFields.hopByHopNames
        .union(HeaderFields.framingNames).union(["x-understudy-stub"])

    private struct Group {
        let matcher: RequestMatcher
        let specificity: Int
        var responses: [StubResponse]
    }

    static func stubs(for document: HARDocument, name: String, matching key: HARMatchKey) -> [Stub] {
        var groups: [[String]: Int] = [:]
        var ordered: [Group] = []
        for entry in document.log.entries {
            guard let url = URL(string: entry.request.url) else { continue }
            let request = StubRequest(method: entry.request.method, url: url, headers: HeaderFields(entry.request.headers.map { ($0.name, $0.value) }),
                                      body: entry.request.postData?.data)
            let identity = self.identity(of: request, key: key)
            let response = self.response(for: entry)
            if let index = groups[identity] {
                ordered[index].responses.append(response)
            } else {
                groups[identity] = ordered.count
                ordered.append(Group(matcher: matcher(for: request, key: key), specificity: specificity(of: request, key: key), responses: [response]))
            }
        }
        return ordered.enumerated().map { index, group in
            let answer: Stub.Answer = group.responses.count == 1 ? .response(group.responses[0]) : .sequence(group.responses)
            return Stub(named: "\(name)-\(index + 1)", matching: group.matcher, priority: group.specificity, answer: answer)
        }
    }

    private static func identity(of request: StubRequest, key: HARMatchKey) -> [String] {
        key.components.map { component in
            switch component {
            case .method: return request.method
            case .url: return request.path + "?" + request.queryItems.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
            case .host: return request.host
            case .header(let name): return request.headers.values(for: name).joined(separator: ", ") + (request.headers.contains(name) ? "+" : "-")
            case .body: return request.body?.base64EncodedString() ?? ""
            }
        }
    }

    /// The stub's priority: more query parameters first, then more of the key's headers recorded.
    private static func specificity(of request: StubRequest, key: HARMatchKey) -> Int {
        let recordedHeaders = key.components.filter { component in
            if case .header(let name) = component { return request.headers.contains(name) }
            return false
        }
        return request.queryItems.count * 16 + min(recordedHeaders.count, 15)
    }

    private static func matcher(for request: StubRequest, key: HARMatchKey) -> RequestMatcher {
        var matcher = RequestMatcher.any
        for component in key.components {
            switch component {
            case .method:
                matcher = matcher && .method(request.method)
            case .url:
                let query = request.queryItems
                let described = query.isEmpty ? "no query" : "query " + query.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
                matcher = matcher && .path(request.path) && .custom(described) { incoming in
                    incoming.queryItems.count == query.count
                        && zip(incoming.queryItems, query).allSatisfy { $0.name == $1.name && $0.value == $1.value }
                }
            case .host:
                matcher = matcher && .host(request.host)
            case .header(let name):
                // Recorded without the header, the answer did not depend on it: it serves any
                // value, behind requests recorded with this one (see `specificity`).
                let values = request.headers.values(for: name)
                if !values.isEmpty {
                    matcher = matcher && .header(name, value: values.joined(separator: ", "))
                }
            case .body:
                matcher = matcher && .body(request.body ?? Data())
            }
        }
        return matcher
    }

    private static func response(for entry: HAREntry) -> StubResponse {
        let recorded = entry.response
        guard recorded.status > 0 else {
            return .failure(entry.understudy?.fault.flatMap(Fault.init(fileName:)) ?? .emptyResponse)
        }
        var recordedHeaders = HeaderFields()
        // HTTP/2 pseudo-headers (`:status`, which older Chromium lists among the response
        // headers) are not header lines in HTTP/1.1.
        for header in recorded.headers where !header.name.hasPrefix(":") {
            recordedHeaders.add(name: header.name, value: header.value)
        }
        // The server's one hop-by-hop filter: also drops what the recorded `Connection` names.
        let headers = recordedHeaders.removingHopByHop(also: droppedHeaders)
        let body = recorded.content.data ?? Data()
        let base: StubResponse
        if body.isEmpty {
            base = .status(recorded.status)
        } else {
            let mimeType = recorded.content.mimeType
            base = StubResponse.data(body, contentType: headers["Content-Type"] ?? (mimeType.isEmpty ? nil : mimeType)).status(recorded.status)
        }
        return headers.isEmpty ? base : base.headers(headers)
    }
}
