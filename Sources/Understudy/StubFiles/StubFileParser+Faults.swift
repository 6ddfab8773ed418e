import Foundation
internal import Yams

/// The response keys of faults, chance and split delays: `fault`, `delay` with `jitter` or
/// `chance`, `headersDelay`, `bodyDelay`, `network` and `status` with `chance`, `informational`.
extension StubFileParser {
    private static let faultExpected = "a fault name, or {<fault name>: <argument>, chance: 0.3}"

    /// `fault: disconnect-after-request`, `fault: { reset-during-response-body: { after: 1024 } }`,
    /// `fault: { slow-close: 2s }`, `fault: { timeout: { after: 5s } }`, `fault: { limit-data: 5000 }`;
    /// `chance: 0.3` beside the name (`{ name: connection-reset, chance: 0.3 }` for a name that
    /// takes no argument). `nil` (reported) when invalid.
    mutating func parseFault(_ node: Node, path: String) -> (fault: Fault, chance: Double)? {
        if node.kind != .mapping {
            guard let name = string(node, path, expected: Self.faultExpected) else { return nil }
            return faultNamed(name, argument: nil, node: node, path: path).map { ($0, 1) }
        }
        let issuesBefore = issues.count
        guard let fields = entries(node, path, allowed: nil, expected: Self.faultExpected) else { return nil }
        var chance = 1.0
        var named: (name: String, argument: Node?, node: Node, path: String)?
        for field in fields {
            let fieldPath = join(path, field.key)
            switch field.key {
            case "chance":
                chance = parseChance(field.value, path: fieldPath) ?? chance
            default:
                let name: String
                let argument: Node?
                if field.key == "name" {
                    guard let given = string(field.value, fieldPath, expected: "a fault name") else { continue }
                    (name, argument) = (given, nil)
                } else {
                    (name, argument) = (field.key, field.value.kind == .null ? nil : field.value)
                }
                if let named {
                    report(field.keyNode, fieldPath, "found both '\(named.name)' and '\(name)'; expected one fault")
                    continue
                }
                named = (name, argument, field.key == "name" ? field.value : field.keyNode, fieldPath)
            }
        }
        guard let named else {
            if issues.count == issuesBefore { report(node, path, "no fault named; expected \(Self.faultExpected)") }
            return nil
        }
        let fault = faultNamed(named.name, argument: named.argument, node: named.node, path: named.path)
        guard issues.count == issuesBefore, let fault else { return nil }
        return (fault, chance)
    }

    private mutating func faultNamed(_ name: String, argument: Node?, node: Node, path: String) -> Fault? {
        guard Fault.fileNames.contains(name) else {
            report(node, path, "unknown fault '\(name)'; expected one of \(Fault.fileNames.joined(separator: ", "))")
            return nil
        }
        guard let kind = Fault.argument(of: name) else {
            if let argument {
                reportMismatch(argument, path, expected: "no argument: '\(name)' takes none")
                return nil
            }
            return Fault(fileName: name)
        }
        let example: String
        switch kind {
        case .afterBytes: example = "{\(name): {after: 1024}}"
        case .afterDuration: example = "{\(name): {after: 5s}}"
        case .duration: example = "{\(name): 2s}"
        case .bytes: example = "{\(name): 5000}"
        }
        guard let argument else {
            report(node, path, "fault '\(name)' needs an argument; expected \(example)")
            return nil
        }
        var value = argument
        if kind == .afterBytes || kind == .afterDuration, argument.kind == .mapping {
            guard let after = singleEntry(argument, path, allowed: ["after"], expected: example) else { return nil }
            value = after.value
        }
        let valuePath = argument.kind == .mapping ? join(path, "after") : path
        switch kind {
        case .afterBytes, .bytes:
            guard let bytes = integer(value, valuePath, expected: "a byte count >= 0, as in \(example)", minimum: 0) else { return nil }
            return Fault(fileName: name, bytes: bytes, duration: nil)
        case .afterDuration, .duration:
            guard let duration = duration(value, valuePath) else { return nil }
            return Fault(fileName: name, bytes: nil, duration: duration)
        }
    }

    /// `chance: 0.3`: a share from 0 to 1.
    mutating func parseChance(_ node: Node, path: String) -> Double? {
        let expected = "a share from 0 to 1, like 0.3"
        guard let value = number(node, path, expected: expected) else { return nil }
        guard (0...1).contains(value) else {
            report(node, path, "chance \(value) is out of range; expected \(expected)")
            return nil
        }
        return value
    }

    /// `delay:` as ``parseDelay(_:path:)`` reads it, or `{ fixed: 200ms, jitter: 50ms }`, either
    /// with `chance: 0.3` beside it.
    mutating func parseChancedDelay(_ node: Node, path: String) -> (delay: Delay, chance: Double)? {
        guard node.kind == .mapping else { return parseDelay(node, path: path).map { ($0, 1) } }
        let expected = "a duration like 250ms, {fixed: 200ms, jitter: 50ms}, {uniform: [low, high]} or {lognormal: {median, sigma}}, with chance: 0.3 if left to chance"
        let issuesBefore = issues.count
        guard let fields = entries(node, path, allowed: ["fixed", "jitter", "uniform", "lognormal", "chance"], expected: expected) else {
            return nil
        }
        var chance = 1.0
        var fixed: Duration?
        var jitter: Duration?
        var form: Delay?
        for field in fields {
            let fieldPath = join(path, field.key)
            switch field.key {
            case "chance": chance = parseChance(field.value, path: fieldPath) ?? chance
            case "fixed": fixed = duration(field.value, fieldPath)
            case "jitter": jitter = duration(field.value, fieldPath)
            default:
                if form != nil {
                    report(field.keyNode, fieldPath, "found both 'uniform' and 'lognormal'; expected one of them")
                    continue
                }
                form = parseDelay(.mapping(.init([(field.keyNode, field.value)])), path: path)
            }
        }
        if form != nil, fixed != nil || jitter != nil {
            report(node, path, "found 'fixed' or 'jitter' beside a distribution; expected one of \(expected)")
        } else if jitter != nil, fixed == nil {
            report(node, path, "'jitter' needs 'fixed' beside it; expected {fixed: 200ms, jitter: 50ms}")
        } else if form == nil, fixed == nil, issues.count == issuesBefore {
            report(node, path, "no delay given; expected \(expected)")
        }
        guard issues.count == issuesBefore else { return nil }
        if let form { return (form, chance) }
        return (Delay.jittered(fixed!, by: jitter ?? .zero), chance)
    }

    /// `network:` as ``parseNetwork(_:path:)`` reads it, or `{ profile: slow-3g, chance: 0.3 }`
    /// or `{ latency, rate, chance }`.
    mutating func parseChancedNetwork(_ node: Node, path: String) -> (profile: NetworkProfile, chance: Double)? {
        guard node.kind == .mapping, case .mapping(let mapping) = node,
              mapping.contains(where: { $0.key.string == "chance" || $0.key.string == "profile" }) else {
            return parseNetwork(node, path: path).map { ($0, 1) }
        }
        let issuesBefore = issues.count
        guard let fields = entries(node, path, allowed: ["profile", "latency", "rate", "chance"],
                                   expected: "{profile: slow-3g, chance: 0.3} or {latency: 300ms, rate: 800kbit/s, chance: 0.3}") else { return nil }
        var chance = 1.0
        var profile: NetworkProfile?
        var custom: [(Node, Node)] = []
        for field in fields {
            let fieldPath = join(path, field.key)
            switch field.key {
            case "chance": chance = parseChance(field.value, path: fieldPath) ?? chance
            case "profile": profile = parseNetwork(field.value, path: fieldPath)
            default: custom.append((field.keyNode, field.value))
            }
        }
        if !custom.isEmpty {
            if profile != nil {
                report(node, path, "found both 'profile' and 'latency'/'rate'; expected one of them")
            } else {
                profile = parseNetwork(.mapping(.init(custom)), path: path)
            }
        } else if profile == nil, issues.count == issuesBefore {
            report(node, path, "missing key 'profile'; expected {profile: slow-3g, chance: 0.3}")
        }
        guard issues.count == issuesBefore, let profile else { return nil }
        return (profile, chance)
    }

    /// `status: 503`, or `{ code: 503, chance: 0.3 }`.
    mutating func parseChancedStatus(_ node: Node, path: String) -> (code: Int, chance: Double)? {
        let expected = "an integer from 100 to 599, or {code: 503, chance: 0.3}"
        var codeNode = node
        var codePath = path
        var chance = 1.0
        let issuesBefore = issues.count
        if node.kind == .mapping {
            guard let fields = entries(node, path, allowed: ["code", "chance"], expected: expected) else { return nil }
            guard let code = fields.first(where: { $0.key == "code" }) else {
                report(node, path, "missing key 'code'; expected {code: 503, chance: 0.3}")
                return nil
            }
            (codeNode, codePath) = (code.value, join(path, "code"))
            if let given = fields.first(where: { $0.key == "chance" }) {
                chance = parseChance(given.value, path: join(path, "chance")) ?? chance
            }
        }
        guard let code = integer(codeNode, codePath, expected: "an integer from 100 to 599") else { return nil }
        guard (100...599).contains(code) else {
            report(codeNode, codePath, "status \(code) is out of range; expected an integer from 100 to 599")
            return nil
        }
        guard issues.count == issuesBefore else { return nil }
        return (code, chance)
    }

    /// `informational: [{ status: 103, headers: { Link: "</hero.avif>; rel=preload; as=image" } }]`.
    mutating func parseInformational(_ node: Node, path: String) -> [InformationalHead]? {
        let expected = "a list of {status: 103, headers: {...}}"
        guard case .sequence(let items) = node else {
            reportMismatch(node, path, expected: expected)
            return nil
        }
        let issuesBefore = issues.count
        var heads: [InformationalHead] = []
        for (index, item) in items.enumerated() {
            let itemPath = path + "[\(index)]"
            guard let fields = entries(item, itemPath, allowed: ["status", "headers"], expected: "{status: 103, headers: {...}}") else { continue }
            var status: Int?
            var headers: HeaderFields = [:]
            for field in fields {
                let fieldPath = join(itemPath, field.key)
                if field.key == "status" {
                    guard let code = integer(field.value, fieldPath, expected: "a 1xx status other than 101") else { continue }
                    guard (100...199).contains(code), code != 101 else {
                        report(field.value, fieldPath, "status \(code) is not informational; expected a 1xx status other than 101, like 103")
                        continue
                    }
                    status = code
                } else {
                    headers = parseResponseHeaders(field.value, path: fieldPath) ?? headers
                }
            }
            if status == nil, issues.count == issuesBefore {
                report(item, itemPath, "missing key 'status'; expected {status: 103, headers: {...}}")
            }
            if let status { heads.append(InformationalHead(status: status, headers: headers)) }
        }
        guard issues.count == issuesBefore else { return nil }
        return heads
    }
}
