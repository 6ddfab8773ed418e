import Foundation
import UnderstudyImages

/// Stubs written in the stub-file schema, the form a running server's `POST /__admin/stubs`
/// reads: how `StubServerClient` sends the Swift DSL over the wire.
///
/// Whatever the schema can say is written; what it cannot (a closure, `||` across different
/// keys, `!`, a request body that is not text) throws ``Unwritable`` naming it, before anything
/// is sent. A file on this machine travels as its bytes (`base64`), so that a server on another
/// host, or a device, serves it.
package enum StubFileWriter {
    /// A matcher or response with no spelling in the stub-file schema.
    package struct Unwritable: Error, CustomStringConvertible {
        /// What cannot cross the wire, and what to do instead.
        package let description: String

        init(_ description: String) {
            self.description = description
        }
    }

    /// One stub of a stub file: `{name, priority, times, request, response | responses}`.
    package static func stub(
        named name: String, matcher: RequestMatcher, priority: Int, times: Int?, responses: [StubResponse]
    ) throws(Unwritable) -> JSONValue {
        var stub: [String: JSONValue] = ["name": .string(name), "request": .object(try request(matcher))]
        if priority != 0 { stub["priority"] = .number(Double(priority)) }
        if let times { stub["times"] = .number(Double(times)) }
        if responses.count == 1 {
            stub["response"] = .object(try response(responses[0]))
        } else {
            var written: [JSONValue] = []
            for response in responses { written.append(.object(try self.response(response))) }
            stub["responses"] = .array(written)
        }
        return .object(stub)
    }

    // MARK: Requests

    /// The `request:` mapping of `matcher`: every test a key, all of which must match.
    package static func request(_ matcher: RequestMatcher) throws(Unwritable) -> [String: JSONValue] {
        var request: [String: JSONValue] = [:]
        var query: [String: JSONValue] = [:]
        var headers: [String: JSONValue] = [:]
        var cookies: [String: JSONValue] = [:]
        func set(_ key: String, _ value: JSONValue) throws(Unwritable) {
            guard request[key] == nil else {
                throw Unwritable("the matcher \(matcher) tests '\(key)' twice, which a stub file cannot say; test it once, or register the stub in process")
            }
            request[key] = value
        }
        let nodes: [RequestMatcher.Node]
        if case .and(let parts) = matcher.node { nodes = parts } else { nodes = [matcher.node] }
        for node in nodes {
            switch node {
            case .any: break
            case .scheme(let scheme): try set("scheme", .string(scheme))
            case .host(let host): try set("host", .string(host.isGlob ? "*" + host.value : host.value))
            case .path(let path): try set("path", .string(path))
            case .pathPrefix(let prefix): try set("pathPrefix", .string(prefix))
            case .pathPattern(let box): try set("pathPattern", .string(box.pattern))
            case .pathExtension(let ext): try set("extension", .string(ext))
            case .pathTemplate, .pathParameter:
                throw Unwritable("the matcher \(RequestMatcher(node)) cannot cross the wire: a stub file has no path templates; use pathPattern, or post it as a WireMock mapping with urlPathTemplate")
            case .method(let method): try set("method", .string(method))
            case .query(let name, let value): query[name] = value.map(JSONValue.string) ?? .null
            case .header(let name, let test):
                switch test {
                case .present: headers[name] = .object(["present": true])
                case .absent: headers[name] = .object(["present": false])
                case .equals(let value): headers[name] = .string(value)
                case .contains(let value): headers[name] = .object(["contains": .string(value)])
                case .pattern(let box): headers[name] = .object(["pattern": .string(box.pattern)])
                case .notPattern(let box): headers[name] = .object(["notPattern": .string(box.pattern)])
                }
            case .cookie(let name, let test):
                cookies[name] = switch test {
                case .present: .object(["present": true])
                case .absent: .object(["present": false])
                case .equals(let value): .string(value)
                case .contains(let value): .object(["contains": .string(value)])
                case .pattern(let box): .object(["pattern": .string(box.pattern)])
                case .notPattern(let box): .object(["notPattern": .string(box.pattern)])
                }
            case .accepts(let type): try set("accepts", .string(type))
            case .body(let data): try set("body", .object(["equals": .string(try text(data, "body"))]))
            case .bodyContains(let data): try set("body", .object(["contains": .string(try text(data, "body(containing:)"))]))
            case .jsonBody(let json, .exact): try set("body", .object(["json": json]))
            case .jsonPath(let path, nil): try set("body", .object(["jsonPath": .string(path.text)]))
            case .jsonBody, .jsonPath:
                throw Unwritable("the matcher \(RequestMatcher(node)) cannot cross the wire: a stub file compares JSON bodies exactly and tests a JSONPath for presence only; post it as a WireMock mapping")
            case .or(let alternatives):
                // `.method("GET") || .method("POST")` and the like are a list of one key.
                if let methods = alternatives.allCases(of: { if case .method(let m) = $0 { m } else { nil } }) {
                    try set("method", .array(methods.map(JSONValue.string)))
                } else if let extensions = alternatives.allCases(of: { if case .pathExtension(let e) = $0 { e } else { nil } }) {
                    try set("extension", .array(extensions.map(JSONValue.string)))
                } else {
                    throw Unwritable("the matcher \(RequestMatcher(node)) cannot cross the wire: a stub file says `||` only between methods or between extensions; register one stub per alternative")
                }
            case .not:
                throw Unwritable("the matcher \(RequestMatcher(node)) cannot cross the wire: a stub file has no `!`; match what you want, with a higher priority")
            case .custom(let name, _):
                throw Unwritable("the matcher .custom(\"\(name)\") cannot cross the wire: a closure runs only in this process; describe the request with path, query, headers or body")
            case .and:
                throw Unwritable("the matcher \(RequestMatcher(node)) cannot cross the wire: nested groups; flatten it with &&")
            }
        }
        if !query.isEmpty { try set("query", .object(query)) }
        if !headers.isEmpty { try set("headers", .object(headers)) }
        if !cookies.isEmpty { try set("cookies", .object(cookies)) }
        return request
    }

    private static func text(_ data: Data, _ what: String) throws(Unwritable) -> String {
        guard let text = String(data: data, encoding: .utf8) else {
            throw Unwritable("the matcher \(what) of \(data.count) bytes that are not UTF-8 cannot cross the wire: a stub file matches bodies as text")
        }
        return text
    }

    // MARK: Responses

    /// The `response:` mapping of `response`.
    package static func response(_ response: StubResponse) throws(Unwritable) -> [String: JSONValue] {
        var written: [String: JSONValue] = [:]
        var headers = response.headers
        switch response.body {
        case .empty:
            break
        case .data(let data, let contentType):
            written["base64"] = .string(data.base64EncodedString())
            if let contentType, headers["Content-Type"] == nil { headers["Content-Type"] = contentType }
        case .json(let json):
            written["json"] = json
        case .file(let url):
            let data = try contents(of: url)
            written["base64"] = .string(data.base64EncodedString())
            if headers["Content-Type"] == nil { headers["Content-Type"] = MediaType.forFile(url, data: data) }
        case .redirect(let location):
            written["redirect"] = .object(["to": .string(location), "status": .number(Double(response.statusCode))])
        case .failure(let fault):
            guard Fault.fileNames.contains(fault.description) else {
                throw Unwritable("the fault \(fault) cannot cross the wire: a server answers only \(Fault.fileNames.joined(separator: ", ")); a URLError is for the in-process transport")
            }
            written["fault"] = .string(fault.description)
        case .image(let source, let format, let options):
            written["image"] = .object(try image(source, format, options))
        case .forward(_, let added) where !added.isEmpty:
            throw Unwritable("a forward adding request headers cannot cross the wire: a stub file's forward: has no headers; post it as a WireMock mapping with additionalProxyRequestHeaders")
        case .forward(let base, _):
            written["forward"] = base.map { .object(["to": .string($0.absoluteString)]) } ?? .bool(true)
        }
        if case .redirect = response.body {} else if response.statusCode != 200 {
            written["status"] = .number(Double(response.statusCode))
        }
        if !headers.isEmpty {
            // Repeated names join as one line: a stub file's headers are a mapping.
            var lines: [String: String] = [:]
            for field in headers { lines[field.name] = lines[field.name].map { "\($0), \(field.value)" } ?? field.value }
            written["headers"] = .object(lines.mapValues(JSONValue.string))
        }
        if let transcode = response.transcode { written["transcode"] = .string(try formatName(transcode)) }
        if let bytes = response.truncateAfter { written["truncateAfter"] = .number(Double(bytes)) }
        if let delay = response.delay { written["delay"] = delayValue(delay) }
        if let bandwidth = response.bandwidth { written["bandwidth"] = .string(bandwidth.description) }
        if let network = response.network { written["network"] = networkValue(network) }
        if let pieces = response.pieces { written["pieces"] = piecesValue(pieces) }
        if let policy = response.cachePolicy { written["cache"] = cacheValue(policy) }
        if let ranges = response.rangesEnabled { written["ranges"] = .bool(ranges) }
        if let pause = response.pause {
            written["pause"] = .object(["afterBytes": .number(Double(pause.afterBytes)), "gate": .string(pause.gate)])
        }
        written.merge(try faultKeys(response)) { _, new in new }
        return written
    }

    private static func contents(of url: URL) throws(Unwritable) -> Data {
        do {
            return try Data(contentsOf: url)
        } catch {
            throw Unwritable("cannot read \(url.path) to send it: \(error.localizedDescription)")
        }
    }

    private static func image(_ source: ImageSource, _ format: ServedImageFormat, _ options: ImageOptions) throws(Unwritable) -> [String: JSONValue] {
        var image: [String: JSONValue] = [:]
        switch source {
        case .file(let url): image["base64"] = .string(try contents(of: url).base64EncodedString())
        case .data(let data): image["base64"] = .string(data.base64EncodedString())
        case .generated(let width, let height, let pattern):
            image["generate"] = .object(generated(width, height, pattern))
        case .animated(let width, let height, let pattern, let frames, let frameDuration):
            var generate = generated(width, height, pattern)
            generate["frames"] = .number(Double(frames))
            generate["frameDuration"] = .string(frameDuration.compactDescription)
            image["generate"] = .object(generate)
        }
        image["as"] = .string(try formatName(format))
        switch format {
        case .encoded(.webp(let quality)), .encoded(.jpeg(let quality)), .encoded(.jpegProgressive(let quality)), .encoded(.heic(let quality)):
            image["quality"] = .number(Double(quality))
        case .encoded(.avif(let quality, let speed)):
            image["quality"] = .number(Double(quality))
            image["speed"] = .number(Double(speed))
        case .negotiated(let kinds):
            image["formats"] = .array(kinds.map { .string($0.rawValue) })
        case .encoded(.png), .encoded(.webpLossless), .encoded(.gif), .original:
            break
        }
        if let resize = options.resize {
            var fields: [String: JSONValue] = ["fit": .string(resize.fit.rawValue)]
            for (key, dimension) in [("width", resize.width), ("height", resize.height)] {
                switch dimension {
                case .pixels(let value)?: fields[key] = .number(Double(value))
                case .query(let name)?: fields[key] = .string("{query.\(name)}")
                case nil: break
                }
            }
            image["resize"] = .object(fields)
        }
        if let damage = options.damage { image["damage"] = .string(damage.rawValue) }
        return image
    }

    private static func generated(_ width: Int, _ height: Int, _ pattern: ImagePattern) -> [String: JSONValue] {
        var fields: [String: JSONValue] = ["width": .number(Double(width)), "height": .number(Double(height))]
        switch pattern {
        case .checkerboard: fields["pattern"] = "checkerboard"
        case .gradient: fields["pattern"] = "gradient"
        case .photo: fields["pattern"] = "photo"
        case .solid(let colour):
            fields["pattern"] = "solid"
            fields["color"] = .string(colour.description)
        }
        return fields
    }

    /// The name a stub file gives a format (`as:` and `transcode:`).
    private static func formatName(_ format: ServedImageFormat) throws(Unwritable) -> String {
        switch format {
        case .encoded(.png): "png"
        case .encoded(.webp): "webp"
        case .encoded(.webpLossless): "webp-lossless"
        case .encoded(.jpeg): "jpeg"
        case .encoded(.jpegProgressive): "jpeg-progressive"
        case .encoded(.avif): "avif"
        case .encoded(.heic): "heic"
        case .encoded(.gif): "gif"
        case .original: "original"
        case .negotiated: "negotiate"
        }
    }

    private static func delayValue(_ delay: Delay) -> JSONValue {
        switch delay {
        case .fixed(let duration): .string(duration.compactDescription)
        case .uniform(let range): .object(["uniform": [.string(range.lowerBound.compactDescription), .string(range.upperBound.compactDescription)]])
        case .lognormal(let median, let sigma): .object(["lognormal": ["median": .string(median.compactDescription), "sigma": .number(sigma)]])
        }
    }

    private static func networkValue(_ network: NetworkProfile) -> JSONValue {
        if let name = network.name { return .string(name) }
        return .object(["latency": .string(network.latency.compactDescription), "rate": .string(network.rate.description)])
    }

    private static func piecesValue(_ pieces: BodyPieces) -> JSONValue {
        var fields: [String: JSONValue] = ["interval": .string(pieces.interval.compactDescription)]
        switch pieces.cut {
        case .at(let offsets): fields["at"] = .array(offsets.map { .number(Double($0)) })
        case .scans: fields["by"] = "scans"
        case .frames: fields["by"] = "frames"
        }
        return .object(fields)
    }

    private static func cacheValue(_ policy: CachePolicy) -> JSONValue {
        var fields: [String: JSONValue] = [:]
        switch policy.etag {
        case .strong: fields["etag"] = "strong"
        case .weak: fields["etag"] = "weak"
        case .none: fields["etag"] = "none"
        case .fixed(let tag): fields["etag"] = .string(tag)
        }
        switch policy.lastModified {
        case .file: fields["lastModified"] = "file"
        case .none: fields["lastModified"] = "none"
        case .date(let date): fields["lastModified"] = .string(ISO8601DateFormatter().string(from: date))
        }
        if let control = policy.control { fields["control"] = .string(control) }
        return .object(fields)
    }
}

extension [RequestMatcher.Node] {
    /// Each node's value by `extract`, when every node gives one.
    fileprivate func allCases(of extract: (RequestMatcher.Node) -> String?) -> [String]? {
        let values = compactMap(extract)
        return values.count == count ? values : nil
    }
}
