import Foundation
internal import Yams

extension WireMockParser {
    static let responseFields = [
        "status", "body", "jsonBody", "base64Body", "bodyFileName", "headers", "fixedDelayMilliseconds",
        "delayDistribution", "chunkedDribbleDelay", "fault", "transformers", "transformerParameters", "proxyBaseUrl",
        "additionalProxyRequestHeaders",
    ]
    /// Why a `bodyFileName` posted to a server without a WireMock root cannot be served.
    static let noRootMessage = "bodyFileName needs a WireMock root holding __files/; start the server with --root-dir DIR (or --wiremock DIR)"

    /// The one transformer Understudy runs: WireMock's Handlebars templating.
    static let templateTransformer = "response-template"
    static let bodyFields = ["body", "jsonBody", "base64Body", "bodyFileName"]
    /// WireMock's fault names, in the order messages list them, and ours.
    static let faults: KeyValuePairs<String, Fault> = [
        "EMPTY_RESPONSE": .emptyResponse, "CONNECTION_RESET_BY_PEER": .connectionReset,
        "MALFORMED_RESPONSE_CHUNK": .malformedChunk, "RANDOM_DATA_THEN_CLOSE": .randomDataThenClose,
    ]

    /// What delays a response, in WireMock's terms; turned into Understudy's delay and pacing
    /// once the body's size is known.
    struct Timing {
        var fixedMilliseconds = 0
        var distribution: Delay?
        var dribble: (chunks: Int, totalMilliseconds: Int)?
    }

    /// The `response` object as an answer. Without a `fault`, the body comes from at most one of
    /// ``bodyFields``; `status` defaults to 200; no Content-Type is added unless `headers` has one.
    mutating func parseResponse(_ node: Node, path: String) -> Stub.Answer? {
        let issuesBefore = issues.count
        guard let fields = fields(node, path, supported: Self.responseFields, expected: "a response object") else { return nil }
        var templated = templatesEveryResponse
        if let transformers = fields.first(where: { $0.key == "transformers" }) {
            templated = parseTransformers(transformers.value, join(path, "transformers")) || templated
        }
        var templates = Templates()
        var status = 200
        var body: (response: StubResponse, size: Int)?
        var bodyKey: String?
        var headers: HeaderFields?
        var fault: Fault?
        var timing = Timing()
        var proxy: (base: URL, node: Node)?
        var proxyHeaders = HeaderFields()
        for field in fields {
            let fieldPath = join(path, field.key)
            switch field.key {
            case "status":
                if let code = integer(field.value, fieldPath, expected: "an integer from 100 to 599") {
                    if (100...599).contains(code) {
                        status = code
                    } else {
                        report(field.value, fieldPath, "status \(code) is out of range; expected an integer from 100 to 599")
                    }
                }
            case _ where Self.bodyFields.contains(field.key):
                if let first = bodyKey {
                    report(field.keyNode, fieldPath, "found both '\(first)' and '\(field.key)'; expected at most one of \(Self.bodyFields.joined(separator: ", "))")
                    continue
                }
                bodyKey = field.key
                if field.key == "bodyFileName", bodyFiles == nil {
                    report(field.value, fieldPath, Self.noRootMessage)
                    continue
                }
                if templated, let template = bodyTemplate(field.key, field.value, fieldPath) {
                    templates.body = template
                    templates.bodyIsFile = field.key == "bodyFileName"
                    continue
                }
                body = parseBody(field.key, field.value, fieldPath)
            case "headers":
                headers = parseHeaders(field.value, fieldPath)
                if templated, let given = headers {
                    templates.headers = templateHeaders(given, field.value, fieldPath)
                }
            case "transformers":
                continue
            case "transformerParameters":
                _ = self.fields(field.value, fieldPath, supported: nil, expected: "an object")
            case "fixedDelayMilliseconds":
                timing.fixedMilliseconds = integer(field.value, fieldPath, expected: "an integer >= 0", minimum: 0) ?? 0
            case "delayDistribution":
                timing.distribution = parseDistribution(field.value, fieldPath)
            case "chunkedDribbleDelay":
                timing.dribble = parseDribble(field.value, fieldPath)
            case "proxyBaseUrl":
                guard let text = string(field.value, fieldPath, expected: "an absolute URL such as http://127.0.0.1:8081") else { continue }
                guard let url = URL(string: text), let scheme = url.scheme, ["http", "https"].contains(scheme), url.host != nil else {
                    report(field.value, fieldPath, "'\(text)' is not an absolute http or https URL; expected one such as http://127.0.0.1:8081")
                    continue
                }
                proxy = (url, field.keyNode)
            case "additionalProxyRequestHeaders":
                proxyHeaders = parseHeaders(field.value, fieldPath) ?? HeaderFields()
            case "fault":
                guard let name = string(field.value, fieldPath, expected: "a fault name") else { continue }
                guard let match = Self.faults.first(where: { $0.key == name }) else {
                    report(field.value, fieldPath, "unknown fault '\(name)'; expected one of \(Self.faults.map(\.key).joined(separator: ", "))")
                    continue
                }
                fault = match.value
            default:
                preconditionFailure("field '\(field.key)' is supported but not handled")
            }
        }
        if let proxy {
            // The upstream's answer is the response: nothing of the mapping's own can stand beside it.
            for (key, present) in [(bodyKey ?? "", bodyKey != nil), ("fault", fault != nil), ("transformers", !templates.isEmpty)] where present {
                report(proxy.node, join(path, "proxyBaseUrl"), "found both 'proxyBaseUrl' and '\(key)'; expected the upstream's answer alone")
            }
        } else if !proxyHeaders.isEmpty, let field = fields.first(where: { $0.key == "additionalProxyRequestHeaders" }) {
            report(field.keyNode, join(path, field.key), "additionalProxyRequestHeaders without proxyBaseUrl; expected a proxyBaseUrl to send them to")
        }
        guard issues.count == issuesBefore else { return nil }
        if let proxy {
            return Self.timed(.forward(to: proxy.base, adding: proxyHeaders), bodySize: 0, timing: timing)
        }

        // A fault replaces the whole response in WireMock: status, headers and body go unsent.
        var response = fault.map { StubResponse.failure($0) } ?? (body?.response ?? .status(200)).status(status)
        if fault == nil, let headers { response = response.headers(headers) }
        if fault != nil { timing.dribble = nil }
        if fault == nil, !templates.isEmpty {
            return templates.answer(status: status, headers: headers ?? [:], body: body?.response, timing: timing, bodyFiles: bodyFiles)
        }
        return Self.timed(Self.bare(response), bodySize: body?.size ?? 0, timing: timing)
    }

    /// Whether `transformers` asks for templating; any other transformer is an issue.
    private mutating func parseTransformers(_ node: Node, _ path: String) -> Bool {
        guard case .sequence(let items) = node else {
            reportMismatch(node, path, expected: "an array of transformer names")
            return false
        }
        var templating = false
        for (index, item) in items.enumerated() {
            guard let name = string(item, "\(path)[\(index)]", expected: "a transformer name") else { continue }
            if name == Self.templateTransformer {
                templating = true
            } else {
                report(item, "\(path)[\(index)]", "unsupported transformer '\(name)'; supported: \(Self.templateTransformer)")
            }
        }
        return templating
    }

    /// The body as a template when it has expressions; `nil` (parse it as usual) when it is
    /// literal, or when it has issues (reported).
    private mutating func bodyTemplate(_ key: String, _ node: Node, _ path: String) -> ResponseTemplate? {
        let text: String
        switch key {
        case "body", "bodyFileName":
            guard WireMockJSON.kind(of: node) == .string, let value = node.scalar?.string else { return nil }
            text = value
        case "jsonBody":
            guard let data = WireMockJSON.serialized(node) else { return nil }
            text = String(decoding: data, as: UTF8.self)
        default:
            return nil
        }
        do {
            let template = try ResponseTemplate(parsing: text, pathTemplate: pathTemplate)
            return template.isLiteral ? nil : template
        } catch {
            report(node, path, error.message)
            // Parsed as usual below would report nothing more; an empty template stands in.
            return try? ResponseTemplate(parsing: "")
        }
    }

    /// The header values that are templates, by position.
    private mutating func templateHeaders(_ headers: HeaderFields, _ node: Node, _ path: String) -> [(name: String, template: ResponseTemplate)] {
        var result: [(name: String, template: ResponseTemplate)] = []
        for field in headers {
            do {
                result.append((field.name, try ResponseTemplate(parsing: field.value, pathTemplate: pathTemplate)))
            } catch {
                report(node, join(path, field.name), error.message)
            }
        }
        return result.contains { !$0.template.isLiteral } ? result : []
    }

    /// The body and its size in bytes (the size paces `chunkedDribbleDelay`).
    private mutating func parseBody(_ key: String, _ node: Node, _ path: String) -> (response: StubResponse, size: Int)? {
        switch key {
        case "body":
            guard let text = string(node, path, expected: "text (use jsonBody for JSON)") else { return nil }
            let data = Data(text.utf8)
            return (.data(data), data.count)
        case "jsonBody":
            guard let data = WireMockJSON.serialized(node) else {
                report(node, path, "a number has more than \(WireMockJSON.maximumPlainDigits) digits written out; expected smaller numbers")
                return nil
            }
            return (.data(data), data.count)
        case "base64Body":
            guard let text = string(node, path, expected: "base64 text") else { return nil }
            guard let data = Data(base64Encoded: text) else {
                report(node, path, "invalid base64 (\(text.count) characters); expected base64 text like aGVsbG8=")
                return nil
            }
            return (.data(data), data.count)
        default:
            guard let reference = string(node, path, expected: "a path inside __files") else { return nil }
            guard let bodyFiles else {
                report(node, path, Self.noRootMessage)
                return nil
            }
            switch bodyFiles.resolve(reference) {
            case .success(let url):
                let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
                return (.file(url), size)
            case .failure(let problem):
                report(node, path, problem.message)
                return nil
            }
        }
    }

    /// `{"Name": "value"}` or `{"Name": ["v1", "v2"]}` (the header once per value).
    private mutating func parseHeaders(_ node: Node, _ path: String) -> HeaderFields? {
        let issuesBefore = issues.count
        var headers = HeaderFields()
        for field in fields(node, path, supported: nil, expected: "an object of header names to values") ?? [] {
            let fieldPath = join(path, field.key)
            if case .sequence(let items) = field.value {
                for (index, item) in items.enumerated() {
                    if let value = string(item, "\(fieldPath)[\(index)]") { headers.add(name: field.key, value: value) }
                }
            } else if let value = string(field.value, fieldPath, expected: "a string or an array of strings") {
                headers.add(name: field.key, value: value)
            }
        }
        return issues.count == issuesBefore ? headers : nil
    }

    /// `{"type": "uniform", "lower": ms, "upper": ms}` or `{"type": "lognormal", "median": ms, "sigma": s}`.
    private mutating func parseDistribution(_ node: Node, _ path: String) -> Delay? {
        let issuesBefore = issues.count
        guard case .mapping(let object) = node else {
            reportMismatch(node, path, expected: "an object with a 'type' (uniform or lognormal)")
            return nil
        }
        guard let typeNode = object["type"] else {
            report(node, path, "missing field 'type'; expected uniform or lognormal")
            return nil
        }
        guard let type = string(typeNode, join(path, "type"), expected: "uniform or lognormal") else { return nil }
        let parameters: [String]
        switch type {
        case "uniform": parameters = ["lower", "upper"]
        case "lognormal": parameters = ["median", "sigma"]
        default:
            report(typeNode, join(path, "type"), "unsupported distribution '\(type)'; supported: uniform, lognormal")
            return nil
        }
        var values: [String: (Double, Node)] = [:]
        for field in fields(node, path, supported: ["type"] + parameters) ?? [] where field.key != "type" {
            let fieldPath = join(path, field.key)
            // WireMock reads `lower` and `upper` as Java ints, `median` and `sigma` as doubles.
            let value = type == "lognormal"
                ? number(field.value, fieldPath, expected: field.key == "sigma" ? "a number >= 0" : "milliseconds, a number >= 0")
                : integer(field.value, fieldPath, expected: "milliseconds, an integer >= 0", minimum: 0).map(Double.init)
            if let value {
                if value < 0 {
                    reportMismatch(field.value, fieldPath, expected: "a number >= 0")
                } else {
                    values[field.key] = (value, field.value)
                }
            }
        }
        for parameter in parameters where values[parameter] == nil && issues.count == issuesBefore {
            report(node, path, "missing field '\(parameter)'; a \(type) distribution needs \(parameters.joined(separator: " and "))")
        }
        guard issues.count == issuesBefore else { return nil }
        if type == "lognormal", let median = values["median"]?.0, let sigma = values["sigma"]?.0 {
            return .lognormal(median: .milliseconds(median), sigma: sigma)
        }
        guard let (lower, lowerNode) = values["lower"], let upper = values["upper"]?.0 else { return nil }
        guard lower <= upper else {
            report(lowerNode, join(path, "lower"), "lower \(Int(lower)) is above upper \(Int(upper)); expected lower <= upper")
            return nil
        }
        return .uniform(.milliseconds(lower) ... .milliseconds(upper))
    }

    /// `{"numberOfChunks": n, "totalDuration": ms}`.
    private mutating func parseDribble(_ node: Node, _ path: String) -> (chunks: Int, totalMilliseconds: Int)? {
        let issuesBefore = issues.count
        var chunks: Int?
        var total: Int?
        for field in fields(node, path, supported: ["numberOfChunks", "totalDuration"]) ?? [] {
            let fieldPath = join(path, field.key)
            if field.key == "numberOfChunks" {
                chunks = integer(field.value, fieldPath, expected: "an integer >= 1", minimum: 1)
            } else {
                total = integer(field.value, fieldPath, expected: "milliseconds, an integer >= 0", minimum: 0)
            }
        }
        for (key, value) in [("numberOfChunks", chunks), ("totalDuration", total)] where value == nil && issues.count == issuesBefore {
            report(node, path, "missing field '\(key)'; expected numberOfChunks and totalDuration")
        }
        guard issues.count == issuesBefore, let chunks, let total else { return nil }
        return (chunks, total)
    }

    // MARK: - Timing

    /// `response` with WireMock's timing in Understudy's terms.
    ///
    /// WireMock waits `fixedDelayMilliseconds` plus a draw from `delayDistribution`, then, for
    /// `chunkedDribbleDelay`, cuts the body into `min(numberOfChunks, size)` chunks and sleeps
    /// `totalDuration / chunks` before each, the head going out with the first. Understudy keeps
    /// the moments a client can see: the head after the delays plus one interval, the last byte
    /// at the end of `totalDuration`, the bytes between paced evenly (in `bandwidth`'s slices, not
    /// WireMock's chunks). A lognormal draw plus a constant is not a ``Delay``, so that case
    /// draws per request in a closure.
    static func timed(_ response: StubResponse, bodySize: Int, timing: Timing) -> Stub.Answer {
        var constant = timing.fixedMilliseconds
        var paced = response
        if let dribble = timing.dribble {
            let chunks = bodySize == 0 ? 1 : min(dribble.chunks, bodySize)
            let interval = dribble.totalMilliseconds / chunks
            constant += interval
            let rest = dribble.totalMilliseconds - interval
            if rest > 0, bodySize > 0 {
                // Rounded up, so the body never takes longer than WireMock's.
                paced = paced.throttled(to: .bytesPerSecond((bodySize * 1_000 + rest - 1) / rest))
            }
        }
        let shift = Duration.milliseconds(constant)
        switch timing.distribution {
        case nil:
            return .response(constant > 0 ? paced.delayed(by: shift) : paced)
        case .uniform(let range):
            return .response(paced.delayed(.uniform((range.lowerBound + shift)...(range.upperBound + shift))))
        case .lognormal where constant == 0:
            return .response(paced.delayed(timing.distribution!))
        case .some(let distribution):
            let base = paced
            return .handler { _ in base.delayed(by: shift + distribution.sample()) }
        }
    }
}
