import Foundation

extension StubFileWriter {
    /// The `fault`, `bodyDelay`, `expectContinue` and `informational` keys of `response`'s phase
    /// fault, body delay, answer to `Expect: 100-continue` and 1xx heads; what it leaves to chance cannot be written yet.
    static func faultKeys(_ response: StubResponse) throws(Unwritable) -> [String: JSONValue] {
        guard response.chances.isEmpty else {
            throw Unwritable("a response with chance: cannot cross the wire yet; write its stub file by hand")
        }
        var written: [String: JSONValue] = [:]
        if let fault = response.phaseFault { written["fault"] = faultValue(fault) }
        if let delay = response.bodyDelay { written["bodyDelay"] = .string(delay.compactDescription) }
        if let policy = response.expectContinuePolicy { written["expectContinue"] = .string(policy.rawValue) }
        if !response.informationalHeads.isEmpty {
            written["informational"] = .array(response.informationalHeads.map { head in
                var lines: [String: String] = [:]
                for field in head.headers { lines[field.name] = lines[field.name].map { "\($0), \(field.value)" } ?? field.value }
                return .object(["status": .number(Double(head.status)), "headers": .object(lines.mapValues(JSONValue.string))])
            })
        }
        return written
    }

    /// A fault as a stub file names it: `disconnect-after-request`, `{slow-close: 2s}`.
    private static func faultValue(_ fault: Fault) -> JSONValue {
        switch fault {
        case .disconnectDuringRequestBody(let bytes):
            return .object(["disconnect-during-request-body": .object(["after": .number(Double(bytes))])])
        case .disconnectDuringResponseBody(let bytes):
            return .object(["disconnect-during-response-body": .object(["after": .number(Double(bytes))])])
        case .resetDuringResponseBody(let bytes):
            return .object(["reset-during-response-body": .object(["after": .number(Double(bytes))])])
        case .timeout(let after):
            return .object(["timeout": .object(["after": .string(after.compactDescription)])])
        case .slowClose(let delay):
            return .object(["slow-close": .string(delay.compactDescription)])
        case .limitData(let bytes):
            return .object(["limit-data": .number(Double(bytes))])
        default:
            return .string(fault.description)
        }
    }
}
