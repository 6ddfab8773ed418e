import Foundation
import Understudy
import UnderstudyHAR
import XCTest

/// `journal.har(redacting:)`: a HAR exported from a test, with the recording's redaction.
final class JournalHARRedactionTests: XCTestCase {
    private func journal() -> Journal {
        let journal = Journal(keepsBodies: true)
        let request = StubRequest(
            method: "GET", url: URL(string: "http://img.example.com/me?user=7")!,
            headers: HeaderFields([("Authorization", "Bearer t0ken"), ("Cookie", "sid=c00kie; theme=dark"), ("X-Api-Key", "k3y"), ("Accept", "image/png")])
        )
        journal.record(request, transport: .inProcess, startTime: Date(timeIntervalSince1970: 1_700_000_000), result: InteractionResult(
            stubName: "me", status: 200,
            headers: HeaderFields([("Content-Type", "text/plain"), ("Set-Cookie", "sid=s3rver; Path=/"), ("Proxy-Authorization", "Basic cHJveHk=")]),
            bodyBytesSent: 2, outcome: .completed, responseBody: Data("hi".utf8)
        ))
        return journal
    }

    private func lines(_ headers: [HARNameValue]) -> [String] {
        headers.map { "\($0.name): \($0.value)" }
    }

    func testTheDefaultRedactionHidesTheSecretHeadersAndCookieValues() throws {
        let entry = try XCTUnwrap(journal().har(redacting: HARRedaction()).log.entries.first)
        XCTAssertEqual(lines(entry.request.headers), [
            "Authorization: REDACTED", "Cookie: REDACTED", "X-Api-Key: k3y", "Accept: image/png",
        ])
        XCTAssertEqual(entry.request.cookies, [HARCookie(name: "sid", value: "REDACTED"), HARCookie(name: "theme", value: "REDACTED")])
        XCTAssertEqual(lines(entry.response.headers), [
            "Content-Type: text/plain", "Set-Cookie: REDACTED", "Proxy-Authorization: REDACTED",
        ])
        XCTAssertEqual(entry.response.cookies, [HARCookie(name: "sid", value: "REDACTED", path: "/")])
        XCTAssertEqual(entry.request.url, "http://img.example.com/me?user=7", "URLs are kept, for replay")
        XCTAssertEqual(entry.response.content.text, "hi", "bodies are kept")
        let text = String(decoding: try journal().har(redacting: HARRedaction()).encoded(), as: UTF8.self)
        for secret in ["t0ken", "c00kie", "s3rver", "cHJveHk="] {
            XCTAssertFalse(text.contains(secret), secret)
        }
    }

    func testExtraHeadersAndKeepingSecretsAsRecordDoes() throws {
        let extra = try XCTUnwrap(journal().har(redacting: HARRedaction(extraHeaders: ["x-api-key"], keepsSecrets: true)).log.entries.first)
        XCTAssertEqual(lines(extra.request.headers), [
            "Authorization: Bearer t0ken", "Cookie: sid=c00kie; theme=dark", "X-Api-Key: REDACTED", "Accept: image/png",
        ])
        let journal = journal()
        XCTAssertEqual(journal.har(redacting: HARRedaction(keepsSecrets: true)), journal.har(), "nothing to hide, the plain export")
        XCTAssertEqual(journal.har().redacted(HARRedaction()), journal.har(redacting: HARRedaction()))
    }
}
