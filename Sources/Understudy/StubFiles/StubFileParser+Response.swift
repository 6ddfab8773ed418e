import Foundation
import UnderstudyImages
internal import Yams

extension StubFileParser {
    static let responseKeys = [
        "status", "headers", "body", "json", "base64", "file", "image", "redirect", "fault", "forward", "transcode",
        "truncateAfter", "delay", "bandwidth", "network", "pieces", "cache", "ranges", "pause", "hazard",
        "contentType", "encoding", "encodingHeader", "headersDelay", "bodyDelay", "informational",
        "expectContinue",
    ]
    /// The keys that each give the response's body; a response has at most one.
    static let bodyKeys = ["body", "json", "base64", "file", "image", "redirect", "forward", "hazard"]

    /// One `response:` mapping (`null` or `{}`: an empty 200). `nil` (reported) when invalid.
    mutating func parseResponse(_ node: Node, path: String) -> StubResponse? {
        if node.kind == .null { return .status(200) }
        let issuesBefore = issues.count
        guard let fields = entries(node, path, allowed: Self.responseKeys, expected: "a response mapping") else {
            return nil
        }
        var response: StubResponse?
        var bodyKey: String?
        var bodyNode: Node?
        var transcode: (node: Node, path: String)?
        var status: (value: Int, node: Node)?
        var headers: HeaderFields?
        var modifiers: [(StubResponse) -> StubResponse] = []
        var contentType: String?
        var encoding: (coding: ContentCoding, node: Node)?
        var encodingHeader: (labelled: Bool, node: Node, path: String)?
        var headersDelayKey: String?

        for field in fields {
            let fieldPath = join(path, field.key)
            switch field.key {
            case "status":
                if let (code, chance) = parseChancedStatus(field.value, path: fieldPath) {
                    if chance < 1 {
                        modifiers.append { $0.status(code, chance: chance) }
                    } else {
                        status = (code, field.value)
                    }
                }
            case "fault":
                if let (fault, chance) = parseFault(field.value, path: fieldPath) {
                    modifiers.append { $0.faulted(fault, chance: chance) }
                }
            case "headersDelay":
                if let duration = duration(field.value, fieldPath) {
                    if let existing = headersDelayKey {
                        report(field.keyNode, fieldPath, "found both '\(existing)' and 'headersDelay'; expected one of them (both wait before the head)")
                        continue
                    }
                    headersDelayKey = "headersDelay"
                    modifiers.append { $0.delayed(by: duration) }
                }
            case "bodyDelay":
                if let duration = duration(field.value, fieldPath) {
                    modifiers.append { $0.bodyDelayed(by: duration) }
                }
            case "informational":
                if let heads = parseInformational(field.value, path: fieldPath) {
                    modifiers.append { $0.informational(heads) }
                }
            case "expectContinue":
                let names = ExpectContinue.allCases.map(\.rawValue)
                guard let name = string(field.value, fieldPath, expected: names.joined(separator: " or ")) else { continue }
                guard let policy = ExpectContinue(rawValue: name) else {
                    report(field.value, fieldPath, "unknown expectContinue '\(name)'; expected \(names.joined(separator: " or "))")
                    continue
                }
                modifiers.append { $0.expectContinue(policy) }
            case "headers":
                headers = parseResponseHeaders(field.value, path: fieldPath)
            case _ where Self.bodyKeys.contains(field.key):
                if let existing = bodyKey {
                    report(field.keyNode, fieldPath,
                           "found both '\(existing)' and '\(field.key)'; expected exactly one of \(Self.bodyKeys.joined(separator: ", "))")
                    continue
                }
                bodyKey = field.key
                bodyNode = field.value
                response = parseBody(field.key, field.value, path: fieldPath)
            case "transcode":
                transcode = (field.value, fieldPath)
            case "truncateAfter":
                if let bytes = integer(field.value, fieldPath, expected: "an integer >= 0", minimum: 0) {
                    modifiers.append { $0.truncated(after: bytes) }
                }
            case "delay":
                if let (delay, chance) = parseChancedDelay(field.value, path: fieldPath) {
                    if let existing = headersDelayKey {
                        report(field.keyNode, fieldPath, "found both '\(existing)' and 'delay'; expected one of them (both wait before the head)")
                        continue
                    }
                    headersDelayKey = "delay"
                    modifiers.append { $0.delayed(delay, chance: chance) }
                }
            case "bandwidth":
                if let bandwidth = parseBandwidth(field.value, path: fieldPath) {
                    modifiers.append { $0.throttled(to: bandwidth) }
                }
            case "network":
                if let (profile, chance) = parseChancedNetwork(field.value, path: fieldPath) {
                    modifiers.append { $0.network(profile, chance: chance) }
                }
            case "pieces":
                if let pieces = parsePieces(field.value, path: fieldPath) {
                    modifiers.append { $0.inPieces(pieces.cut, interval: pieces.interval) }
                }
            case "cache":
                if let policy = parseCache(field.value, path: fieldPath) {
                    modifiers.append { $0.cache(policy) }
                }
            case "ranges":
                if field.value.kind == .bool, let enabled = field.value.bool {
                    modifiers.append { $0.ranges(enabled) }
                } else {
                    reportMismatch(field.value, fieldPath, expected: "true or false")
                }
            case "pause":
                if let pause = parsePause(field.value, path: fieldPath) {
                    modifiers.append { $0.paused(afterBytes: pause.afterBytes, gate: pause.gate) }
                }
            case "contentType":
                guard let value = string(field.value, fieldPath, expected: "none, or the Content-Type to send") else { continue }
                contentType = value
            case "encoding":
                guard let name = string(field.value, fieldPath, expected: "gzip or deflate") else { continue }
                guard let coding = ContentCoding(rawValue: name) else {
                    report(field.value, fieldPath, "unknown encoding '\(name)'; expected gzip or deflate")
                    continue
                }
                encoding = (coding, field.value)
            case "encodingHeader":
                guard field.value.kind == .bool, let labelled = field.value.bool else {
                    reportMismatch(field.value, fieldPath, expected: "true or false")
                    continue
                }
                encodingHeader = (labelled, field.value, fieldPath)
            default:
                preconditionFailure("key '\(field.key)' is allowed but not handled")
            }
        }

        if let status, bodyKey == "redirect" {
            report(status.node, join(path, "status"),
                   "a redirect takes its status inside 'redirect'; expected redirect: {to: ..., status: \(status.value)}")
        }
        var transcodeFormat: ServedImageFormat?
        if let transcode, let format = parseTranscode(transcode.node, path: transcode.path) {
            transcodeFormat = format
            checkTranscodable(bodyKey: bodyKey, bodyNode: bodyNode, response: response, transcodeNode: transcode.node, path: transcode.path)
        }
        if let encodingHeader, encoding == nil {
            report(encodingHeader.node, encodingHeader.path, "encodingHeader applies only with encoding: gzip or deflate")
        }
        guard issues.count == issuesBefore else { return nil }
        var result = response ?? .status(200)
        if let contentType {
            result = contentType == "none" ? result.withoutInferredContentType() : result.headers(["Content-Type": contentType])
        }
        if let encoding { result = result.encoded(encoding.coding, labelled: encodingHeader?.labelled ?? true) }
        if let transcodeFormat { result = result.transcoded(to: transcodeFormat) }
        if let status { result = result.status(status.value) }
        if let headers { result = result.headers(headers) }
        return modifiers.reduce(result) { response, modify in modify(response) }
    }

    /// The body one of ``bodyKeys`` gives. Adding a kind is one case here.
    private mutating func parseBody(_ key: String, _ node: Node, path: String) -> StubResponse? {
        switch key {
        case "body":
            return string(node, path, expected: "text (use 'json' for structured bodies)").map { StubResponse.text($0) }
        case "json":
            return json(node, path).map { StubResponse.json($0) }
        case "base64":
            return base64(node, path).map { StubResponse.data($0) }
        case "file":
            guard let reference = string(node, path, expected: "a path relative to the stub file") else { return nil }
            return resolveFile(reference, node, path).map { StubResponse.file($0) }
        case "image":
            return parseImage(node, path: path)
        case "redirect":
            return parseRedirect(node, path: path)
        case "forward":
            return parseForward(node, path: path)
        case "hazard":
            return parseHazard(node, path: path)
        default:
            preconditionFailure("body key '\(key)' is not handled")
        }
    }

    /// `{ Cache-Control: max-age=60 }`; a list gives the header once per value (`Set-Cookie`).
    mutating func parseResponseHeaders(_ node: Node, path: String) -> HeaderFields? {
        let issuesBefore = issues.count
        guard let fields = entries(node, path, allowed: nil, expected: "a mapping of header names to values") else {
            return nil
        }
        var headers = HeaderFields()
        for field in fields {
            guard let values = strings(field.value, join(path, field.key), expected: "a value or a list of values") else {
                continue
            }
            for value in values { headers.add(name: field.key, value: value) }
        }
        return issues.count == issuesBefore ? headers : nil
    }

    /// `{ to: /new.png, status: 301 }` (status defaults to 302), or just the location.
    private mutating func parseRedirect(_ node: Node, path: String) -> StubResponse? {
        if node.kind != .mapping {
            return string(node, path, expected: "{to: location, status: 3xx}").map { .redirect(to: $0) }
        }
        let issuesBefore = issues.count
        guard let fields = entries(node, path, allowed: ["to", "status"], expected: "{to: location, status: 3xx}") else {
            return nil
        }
        var location: String?
        var status = 302
        for field in fields {
            let fieldPath = join(path, field.key)
            if field.key == "to" {
                location = string(field.value, fieldPath, expected: "a location")
            } else if let code = integer(field.value, fieldPath, expected: "an integer from 300 to 399") {
                if (300...399).contains(code) {
                    status = code
                } else {
                    report(field.value, fieldPath, "redirect status \(code) is not a redirect; expected an integer from 300 to 399")
                }
            }
        }
        if location == nil, issues.count == issuesBefore {
            report(node, path, "missing key 'to'; expected the location to redirect to")
        }
        guard issues.count == issuesBefore, let location else { return nil }
        return .redirect(to: location, status: status)
    }

    /// `true` (the request's own URL, proxy mode) or `{ to: http://upstream:8081 }`.
    private mutating func parseForward(_ node: Node, path: String) -> StubResponse? {
        let expected = "true or {to: URL}"
        if node.kind == .bool {
            guard node.bool == true else {
                report(node, path, "found boolean false; expected \(expected) (leave 'forward' out to answer locally)")
                return nil
            }
            return .forward(to: nil)
        }
        guard let target = singleEntry(node, path, allowed: ["to"], expected: expected) else { return nil }
        let targetPath = join(path, "to")
        guard let text = string(target.value, targetPath, expected: "an http or https URL") else { return nil }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
              url.host?.isEmpty == false
        else {
            report(target.value, targetPath, "invalid upstream URL '\(text)'; expected an http or https URL like http://upstream:8081")
            return nil
        }
        return .forward(to: url)
    }

    /// `250ms`, `{ uniform: [100ms, 300ms] }` or `{ lognormal: { median: 80ms, sigma: 0.4 } }`.
    mutating func parseDelay(_ node: Node, path: String) -> Delay? {
        let expected = "a duration like 250ms, {uniform: [low, high]} or {lognormal: {median, sigma}}"
        switch node.kind {
        case .mapping:
            break
        case .list, .null:
            reportMismatch(node, path, expected: expected)
            return nil
        default:
            return duration(node, path).map(Delay.fixed)
        }
        guard let form = singleEntry(node, path, allowed: ["uniform", "lognormal"], expected: expected) else { return nil }
        let formPath = join(path, form.key)
        if form.key == "uniform" {
            guard case .sequence(let bounds) = form.value, bounds.count == 2 else {
                reportMismatch(form.value, formPath, expected: "a list of two durations [low, high]")
                return nil
            }
            guard let low = duration(bounds[0], formPath + "[0]"), let high = duration(bounds[1], formPath + "[1]") else {
                return nil
            }
            guard low <= high else {
                report(form.value, formPath, "the range is reversed; expected [low, high] with low <= high")
                return nil
            }
            return .uniform(low...high)
        }
        let issuesBefore = issues.count
        guard let fields = entries(form.value, formPath, allowed: ["median", "sigma"], expected: "{median: duration, sigma: number}")
        else { return nil }
        var median: Duration?
        var sigma: Double?
        for field in fields {
            let fieldPath = join(formPath, field.key)
            if field.key == "median" {
                median = duration(field.value, fieldPath)
            } else if let value = number(field.value, fieldPath, expected: "a number >= 0") {
                if value >= 0 {
                    sigma = value
                } else {
                    report(field.value, fieldPath, "expected a number >= 0, found number \(field.value.scalar?.string ?? "")")
                }
            }
        }
        for (key, value) in [("median", median != nil), ("sigma", sigma != nil)] where !value && issues.count == issuesBefore {
            report(form.value, formPath, "missing key '\(key)'; expected {median: duration, sigma: number}")
        }
        guard issues.count == issuesBefore, let median, let sigma else { return nil }
        return .lognormal(median: median, sigma: sigma)
    }

    mutating func duration(_ node: Node, _ path: String) -> Duration? {
        guard let text = string(node, path, expected: "a duration like 250ms") else { return nil }
        guard let value = Delay.parseDuration(text) else {
            report(node, path, "invalid duration '\(text)'; expected a number with a unit, like 250ms, 1.5s or 2m")
            return nil
        }
        return value
    }

    private mutating func parseBandwidth(_ node: Node, path: String) -> Bandwidth? {
        guard let text = string(node, path, expected: "a bandwidth") else { return nil }
        guard let bandwidth = Bandwidth(parsing: text) else {
            report(node, path,
                   "unknown bandwidth '\(text)'; expected one of \(Bandwidth.presetNames.joined(separator: ", ")) or a rate like 64KB/s")
            return nil
        }
        return bandwidth
    }

    /// A `file:` value as a URL inside the load's directory; reported when it is absolute,
    /// escapes the directory (by `..` or through a symlink), is missing or is a directory.
    mutating func resolveFile(_ reference: String, _ node: Node, _ path: String) -> URL? {
        guard let references else {
            report(node, path, "file '\(reference)' cannot be used here; expected stubs loaded from a stub directory")
            return nil
        }
        switch references.resolve(reference) {
        case .success(let url):
            return url
        case .failure(let problem):
            report(node, path, problem.message)
            return nil
        }
    }

    /// Base64 text (whitespace ignored) as its bytes.
    mutating func base64(_ node: Node, _ path: String) -> Data? {
        guard let text = string(node, path, expected: "base64 text") else { return nil }
        let compact = text.filter { !$0.isWhitespace }
        guard let data = Data(base64Encoded: compact) else {
            report(node, path, "invalid base64 (\(compact.count) characters); expected base64 text like iVBORw0KGgo=")
            return nil
        }
        return data
    }
}
