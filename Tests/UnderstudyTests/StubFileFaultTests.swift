import Foundation
import Understudy
import XCTest

/// SPEC 21 in stub files: faults by phase, `chance:`, jitter, split delays and 1xx heads; how
/// they answer, and the exact lines `understudy check` prints for mistakes.
final class StubFileFaultTests: XCTestCase {
    private var sandbox: StubFileSandbox!

    override func setUpWithError() throws { sandbox = try StubFileSandbox() }
    override func tearDown() { sandbox = nil }

    private func registry(_ text: String, seed: UInt64 = 1) throws -> StubRegistry {
        try sandbox.write("a.yaml", text)
        let registry = StubRegistry(seed: seed)
        try registry.load(from: sandbox.stubs)
        return registry
    }

    private func assertIssues(_ text: String, _ expected: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        try sandbox.write("a.yaml", text)
        XCTAssertEqual(sandbox.issues(), expected, file: file, line: line)
    }

    func testEveryPhaseIsNamedInStubFiles() async throws {
        let stubs = try registry("""
        stubs:
          - request: { path: /a }
            response: { body: hello, fault: disconnect-after-request }
          - request: { path: /b }
            response: { body: hello, fault: { disconnect-during-request-body: { after: 100 } } }
          - request: { path: /c }
            response: { body: hello, fault: { disconnect-during-response-body: { after: 2 } } }
          - request: { path: /d }
            response: { body: hello, fault: { reset-during-response-body: { after: 3 } } }
          - request: { path: /e }
            response: { body: hello, fault: shutdown-input-at-end }
          - request: { path: /f }
            response: { body: hello, fault: shutdown-output-at-end }
          - request: { path: /g }
            response: { body: hello, fault: { slow-close: 2s } }
          - request: { path: /h }
            response: { body: hello, fault: { timeout: { after: 5s } } }
          - request: { path: /i }
            response: { body: hello, fault: { limit-data: 5000 } }
          - request: { path: /j }
            response: { fault: connection-reset }
        """)
        var faults: [Fault?] = []
        for path in ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"] {
            faults.append(try await stubs.answer("http://x.test/\(path)").fault)
        }
        XCTAssertEqual(faults, [
            .disconnectAfterRequest, .disconnectDuringRequestBody(after: 100), .disconnectDuringResponseBody(after: 2),
            .resetDuringResponseBody(after: 3), .shutdownInputAtEnd, .shutdownOutputAtEnd, .slowClose(.seconds(2)),
            .timeout(after: .seconds(5)), .limitData(5_000), .connectionReset,
        ])
        let body = try await stubs.answer("http://x.test/c")
        XCTAssertEqual(String(decoding: body.body, as: UTF8.self), "hello", "a phase fault keeps the stub's body")
    }

    func testChanceJitterSplitDelaysAndEarlyHints() async throws {
        let stubs = try registry("""
        stubs:
          - request: { path: /flaky }
            response: { body: ok, fault: { name: connection-reset, chance: 0.5 } }
          - request: { path: /busy }
            response: { body: ok, status: { code: 503, chance: 0.5 } }
          - request: { path: /jitter }
            response: { body: ok, delay: { fixed: 200ms, jitter: 50ms } }
          - request: { path: /split }
            response: { body: ok, headersDelay: 100ms, bodyDelay: 300ms }
          - request: { path: /hints }
            response:
              body: ok
              informational: [{ status: 103, headers: { Link: "</hero.avif>; rel=preload; as=image" } }]
          - request: { path: /maybe-slow }
            response: { body: ok, network: { profile: slow-3g, chance: 0.5 } }
        """, seed: 99)
        var faults = Set<Bool>(), statuses = Set<Int>(), networks = Set<Bool>()
        for _ in 0..<40 {
            faults.insert(try await stubs.answer("http://x.test/flaky").fault == .connectionReset)
            statuses.insert(try await stubs.answer("http://x.test/busy").status)
            networks.insert(try await stubs.answer("http://x.test/maybe-slow").network == .slow3G)
            let jitter = try await stubs.answer("http://x.test/jitter").delay
            XCTAssertTrue((.milliseconds(150) ... .milliseconds(250)).contains(jitter), "\(jitter)")
        }
        XCTAssertEqual(faults, [true, false])
        XCTAssertEqual(statuses, [200, 503])
        XCTAssertEqual(networks, [true, false])
        let split = try await stubs.answer("http://x.test/split")
        XCTAssertEqual(split.delay, .milliseconds(100))
        XCTAssertEqual(split.bodyDelay, .milliseconds(300))
        let hints = try await stubs.answer("http://x.test/hints")
        XCTAssertEqual(hints.informational, [InformationalHead(status: 103, headers: ["Link": "</hero.avif>; rel=preload; as=image"])])
    }

    func testTheSameSeedDrawsTheSameDelays() async throws {
        let text = "stubs:\n  - request: { path: /j }\n    response: { body: ok, delay: { uniform: [10ms, 900ms] } }\n"
        func delays(_ seed: UInt64) async throws -> [Duration] {
            let stubs = try registry(text, seed: seed)
            var drawn: [Duration] = []
            for _ in 0..<20 { drawn.append(try await stubs.answer("http://x.test/j").delay) }
            return drawn
        }
        let first = try await delays(3)
        let again = try await delays(3)
        let other = try await delays(4)
        XCTAssertEqual(first, again)
        XCTAssertNotEqual(first, other)
    }

    func testMistakesNameTheKeyAndWhatWasExpected() throws {
        try assertIssues("""
        stubs:
          - response: { fault: explode }
          - response: { fault: slow-close }
          - response: { fault: { reset-during-response-body: { before: 3 } } }
          - response: { fault: { name: connection-reset, chance: 1.5 } }
          - response: { delay: { jitter: 50ms } }
          - response: { status: { code: 503, chance: 0.2, odds: 3 } }
          - response: { delay: 100ms, headersDelay: 200ms }
          - response: { informational: [{ status: 200 }] }
          - response: { expectContinue: reject }
          - response: { expectContinue: [refuse] }
        """, [
            "Stubs/a.yaml:2: stubs[0].response.fault: unknown fault 'explode'; expected one of \(Fault.fileNames.joined(separator: ", "))",
            "Stubs/a.yaml:3: stubs[1].response.fault: fault 'slow-close' needs an argument; expected {slow-close: 2s}",
            "Stubs/a.yaml:4: stubs[2].response.fault.reset-during-response-body.before: unknown key 'before'; expected one of after",
            "Stubs/a.yaml:5: stubs[3].response.fault.chance: chance 1.5 is out of range; expected a share from 0 to 1, like 0.3",
            "Stubs/a.yaml:6: stubs[4].response.delay: 'jitter' needs 'fixed' beside it; expected {fixed: 200ms, jitter: 50ms}",
            "Stubs/a.yaml:7: stubs[5].response.status.odds: unknown key 'odds'; expected one of code, chance",
            "Stubs/a.yaml:8: stubs[6].response.headersDelay: found both 'delay' and 'headersDelay'; expected one of them (both wait before the head)",
            "Stubs/a.yaml:9: stubs[7].response.informational[0].status: status 200 is not informational; expected a 1xx status other than 101, like 103",
            "Stubs/a.yaml:10: stubs[8].response.expectContinue: unknown expectContinue 'reject'; expected refuse or ignore",
            "Stubs/a.yaml:11: stubs[9].response.expectContinue: expected refuse or ignore, found a list",
        ])
    }

    func testExpectContinueIsReadAndWritten() throws {
        let stubs = try registry("""
        stubs:
          - request: { path: /refused }
            response: { status: 417, expectContinue: refuse }
          - request: { path: /ignored }
            response: { body: ok, expectContinue: ignore }
          - request: { path: /plain }
            response: { body: ok }
        """)
        let policies = ["refused", "ignored", "plain"].map { path in
            stubs.bodyHandling(forHead: StubRequest(method: "POST", url: URL(string: "http://x.test/\(path)")!)).expectContinue
        }
        XCTAssertEqual(policies, [.refuse, .ignore, nil])
        let written = try StubFileWriter.response(.status(417).expectContinue(.refuse))
        XCTAssertEqual(written["expectContinue"], .string("refuse"))
    }
}
