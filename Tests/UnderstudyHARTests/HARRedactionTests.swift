import Foundation
import UnderstudyHAR
import XCTest

/// What a recording hides, entry by entry: header values by name in any case, repeated
/// headers, and the `cookies` arrays of requests and responses.
final class HARRedactionTests: XCTestCase {
    /// An entry as HTTP/2 DevTools writes it: lower-case names, two Set-Cookie lines, both
    /// cookie arrays filled, and a secret in a response header.
    private let entry: HAREntry = {
        let json = #"""
            {"log": {"version": "1.2", "entries": [{
              "request": {"method": "GET", "url": "https://img.example.com/a.png",
                "headers": [{"name": "authorization", "value": "Bearer t0ken"},
                            {"name": "Proxy-Authorization", "value": "Basic cHJveHk="},
                            {"name": "cookie", "value": "sid=s3cret; theme=dark"},
                            {"name": "X-Api-Key", "value": "k3y"}, {"name": "accept", "value": "image/webp"}],
                "cookies": [{"name": "sid", "value": "s3cret"}, {"name": "theme", "value": "dark"}]},
              "response": {"status": 200,
                "headers": [{"name": "set-cookie", "value": "sid=s3cret; Path=/"},
                            {"name": "Set-Cookie", "value": "csrf=c5rf"},
                            {"name": "X-Api-Key", "value": "k3y-echo"}, {"name": "content-type", "value": "image/png"}],
                "cookies": [{"name": "sid", "value": "s3cret", "path": "/"}, {"name": "csrf", "value": "c5rf"}],
                "content": {"size": 0, "mimeType": "image/png"}}
            }]}}
            """#
        return try! HARDocument(data: Data(json.utf8)).log.entries[0]
    }()

    private func headers(_ list: [HARNameValue]) -> [String] {
        list.map { "\($0.name): \($0.value)" }
    }

    func testSecretsAreHiddenInHeadersOfAnyCaseAndInBothCookieArrays() {
        let redacted = HARRedaction(extraHeaders: ["x-api-key"]).apply(to: entry)
        XCTAssertEqual(headers(redacted.request.headers), [
            "authorization: REDACTED", "Proxy-Authorization: REDACTED", "cookie: REDACTED",
            "X-Api-Key: REDACTED", "accept: image/webp",
        ])
        XCTAssertEqual(redacted.request.cookies.map(\.value), ["REDACTED", "REDACTED"])
        XCTAssertEqual(redacted.request.cookies.map(\.name), ["sid", "theme"], "names stay, for replay matching")
        XCTAssertEqual(headers(redacted.response.headers), [
            "set-cookie: REDACTED", "Set-Cookie: REDACTED", "X-Api-Key: REDACTED", "content-type: image/png",
        ])
        XCTAssertEqual(redacted.response.cookies, [
            HARCookie(name: "sid", value: "REDACTED", path: "/"), HARCookie(name: "csrf", value: "REDACTED"),
        ])
        let text = String(decoding: try! HARDocument(log: HARLog(entries: [redacted])).encoded(), as: UTF8.self)
        for secret in ["t0ken", "cHJveHk=", "s3cret", "k3y", "c5rf"] {
            XCTAssertFalse(text.contains(secret), secret)
        }
    }

    func testKeepingSecretsLeavesCookiesAndHidesOnlyTheNamedHeaders() {
        let kept = HARRedaction(extraHeaders: ["X-API-KEY"], keepsSecrets: true).apply(to: entry)
        XCTAssertEqual(headers(kept.request.headers), [
            "authorization: Bearer t0ken", "Proxy-Authorization: Basic cHJveHk=", "cookie: sid=s3cret; theme=dark",
            "X-Api-Key: REDACTED", "accept: image/webp",
        ])
        XCTAssertEqual(kept.request.cookies, entry.request.cookies)
        XCTAssertEqual(kept.response.cookies, entry.response.cookies)
        XCTAssertEqual(HARRedaction(keepsSecrets: true).apply(to: entry), entry, "nothing named, nothing changed")
    }
}
