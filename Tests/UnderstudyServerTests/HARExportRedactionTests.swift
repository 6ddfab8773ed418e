import Foundation
import Understudy
import UnderstudyServer
import XCTest

/// `GET /__admin/requests.har?redact=true`: the export with the recording's redaction, safe to
/// commit; without the flag the export is as the journal holds it.
final class HARExportRedactionTests: XCTestCase {
    private func headers(_ har: Data, _ side: String) throws -> [[String]] {
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: har) as? [String: Any])
        let entries = try XCTUnwrap((document["log"] as? [String: Any])?["entries"] as? [[String: Any]])
        return try entries.map { entry in
            let list = try XCTUnwrap((entry[side] as? [String: Any])?["headers"] as? [[String: String]])
            return list.map { "\($0["name"] ?? ""): \($0["value"] ?? "")" }.filter { !$0.hasPrefix("Date:") }
        }
    }

    func testRedactTrueHidesSecretHeadersAndCookies() async throws {
        let stubs = StubRegistry()
        stubs.stub(.path("/me"), named: "me", response: .text("hi").headers(["Set-Cookie": "sid=s3rver; Path=/"]))
        try await withServer(stubs) { server in
            let base = server.baseURL.absoluteString
            _ = try curl(["-H", "Authorization: Bearer t0ken", "-H", "Cookie: sid=c00kie", "-H", "X-Trace: keep-me", "\(base)/me"])

            let redacted = try curl(["\(base)/__admin/requests.har?redact=true"])
            XCTAssertEqual(redacted.status, 0, redacted.stderr)
            let text = redacted.text
            for secret in ["t0ken", "c00kie", "s3rver"] {
                XCTAssertFalse(text.contains(secret), "\(secret) is in the redacted export")
            }
            let request = try XCTUnwrap(headers(redacted.stdout, "request").first)
            XCTAssertTrue(request.contains("Authorization: REDACTED"), "\(request)")
            XCTAssertTrue(request.contains("Cookie: REDACTED"), "\(request)")
            XCTAssertTrue(request.contains("X-Trace: keep-me"), "\(request)")
            XCTAssertEqual(try headers(redacted.stdout, "response").first?.filter { $0.hasPrefix("Set-Cookie") }, ["Set-Cookie: REDACTED"])
            let document = try XCTUnwrap(JSONSerialization.jsonObject(with: redacted.stdout) as? [String: Any])
            let entry = try XCTUnwrap(((document["log"] as? [String: Any])?["entries"] as? [[String: Any]])?.first)
            let cookies = try XCTUnwrap((entry["request"] as? [String: Any])?["cookies"] as? [[String: Any]])
            XCTAssertEqual(cookies.map { $0["name"] as? String }, ["sid"])
            XCTAssertEqual(cookies.map { $0["value"] as? String }, ["REDACTED"])

            let plain = try curl(["\(base)/__admin/requests.har"])
            XCTAssertTrue(try XCTUnwrap(headers(plain.stdout, "request").first).contains("Authorization: Bearer t0ken"), "no flag, no redaction")
            XCTAssertTrue(plain.text.contains("c00kie"))

            let explicitFalse = try curl(["\(base)/__admin/requests.har?redact=false"])
            XCTAssertTrue(explicitFalse.text.contains("t0ken"))
            let bad = try curl(["\(base)/__admin/requests.har?redact=maybe"])
            XCTAssertEqual(bad.text, #"{"error":"'maybe' is not a valid value for redact; expected true or false","field":"redact"}"# + "\n")
            let unknown = try curl(["\(base)/__admin/requests.har?secrets=no"])
            XCTAssertEqual(unknown.text, #"{"error":"unknown query parameter 'secrets'; expected redact","field":"secrets"}"# + "\n")
        }
    }
}
