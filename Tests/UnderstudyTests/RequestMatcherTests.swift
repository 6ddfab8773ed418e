import Foundation
import Understudy
import XCTest

final class RequestMatcherTests: XCTestCase {
    func request(_ method: String, _ url: String, headers: HeaderFields = [:], body: String? = nil) -> StubRequest {
        StubRequest(method: method, url: URL(string: url)!, headers: headers, body: body.map { Data($0.utf8) })
    }

    func request(_ url: String, headers: HeaderFields = [:]) -> StubRequest {
        request("GET", url, headers: headers)
    }

    func assertMatch(_ matcher: RequestMatcher, _ request: StubRequest, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertTrue(matcher.matches(request), "\(matcher) should match \(request)", file: file, line: line)
        XCTAssertEqual(matcher.mismatches(for: request), [], file: file, line: line)
    }

    func assertNoMatch(_ matcher: RequestMatcher, _ request: StubRequest, _ why: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertFalse(matcher.matches(request), "\(matcher) should not match \(request)", file: file, line: line)
        XCTAssertEqual(matcher.mismatches(for: request).map(\.description), [why], file: file, line: line)
    }

    func testAnyMatchesEverything() {
        assertMatch(.any, request("DELETE", "ftp://x/y"))
    }

    func testSchemeIsCaseInsensitive() {
        assertMatch(.scheme("HTTPS"), request("https://a.test/"))
        assertNoMatch(.scheme("https"), request("http://a.test/"), "scheme is https (got http)")
    }

    func testHostIsCaseInsensitiveIgnoresThePortAndGlobsAnyDepth() {
        assertMatch(.host("IMG.Example.com"), request("http://img.example.COM:8080/a.png"))
        assertMatch(.host("*.example.com"), request("http://img.example.com/"))
        assertMatch(.host("*.example.com"), request("http://a.b.c.example.com/"))
        assertNoMatch(.host("*.example.com"), request("http://example.com/"), "host is *.example.com (got example.com)")
        assertNoMatch(.host("*.example.com"), request("http://badexample.com/"), "host is *.example.com (got badexample.com)")
        assertNoMatch(.host("img.example.com"), request("http://cdn.example.com/"), "host is img.example.com (got cdn.example.com)")
    }

    func testPathPrefixAndPattern() {
        assertMatch(.path("/cats/1.webp"), request("http://a.test/cats/1.webp?w=2#frag"))
        assertNoMatch(.path("/cats/1.webp"), request("http://a.test/cats/1.webp/"), "path is /cats/1.webp (got /cats/1.webp/)")
        assertMatch(.path("/a b.png"), request("http://a.test/a%20b.png"))
        assertMatch(.pathPrefix("/cats/"), request("http://a.test/cats/9.png"))
        assertNoMatch(.pathPrefix("/cats/"), request("http://a.test/dogs/9.png"), "path starts with /cats/ (got /dogs/9.png)")
        assertMatch(.path(matching: #"^/cats/[0-9]+\.webp$"#), request("http://a.test/cats/12.webp"))
        assertNoMatch(.path(matching: #"^/cats/[0-9]+\.webp$"#), request("http://a.test/cats/x.webp"), #"path matches ^/cats/[0-9]+\.webp$ (got /cats/x.webp)"#)
        XCTAssertThrowsError(try RequestMatcher.path(validating: "^/x[")) { error in
            XCTAssertEqual("\(error)".hasPrefix("invalid regular expression '^/x[':"), true)
        }
    }

    func testPathExtensionIsCaseInsensitiveAndIgnoresQueryAndFragment() {
        assertMatch(.pathExtension("webp"), request("http://a.test/x/cat.WEBP?fmt=png#top"))
        assertMatch(.pathExtension(".PNG"), request("http://a.test/cat.png"))
        assertNoMatch(.pathExtension("png"), request("http://a.test/cat.png.webp"), "extension is png (got webp)")
        assertNoMatch(.pathExtension("png"), request("http://a.test/png"), "extension is png (got no extension)")
        assertNoMatch(.pathExtension("png"), request("http://a.test/dir.png/cat"), "extension is png (got no extension)")
    }

    func testMethodIsCaseInsensitiveAndGetAlsoAnswersHead() {
        assertMatch(.method("post"), request("POST", "http://a.test/"))
        assertMatch(.method("GET"), request("HEAD", "http://a.test/"))
        assertNoMatch(.method("HEAD"), request("GET", "http://a.test/"), "method is HEAD (got GET)")
        assertNoMatch(.method("GET"), request("POST", "http://a.test/"), "method is GET (got POST)")
    }

    func testQueryItems() {
        assertMatch(.query("w", "200"), request("http://a.test/?w=100&w=200"))
        assertMatch(.query("debug"), request("http://a.test/?debug"))
        assertMatch(.query("debug", ""), request("http://a.test/?debug"))
        assertNoMatch(.query("w", "300"), request("http://a.test/?w=100&w=200"), "query has w=300 (got w=100&w=200)")
        assertNoMatch(.query("w"), request("http://a.test/?h=1"), "query has w (got query h=1)")
        assertNoMatch(.query("w"), request("http://a.test/"), "query has w (got no query)")
    }

    func testHeaders() {
        let req = request("http://a.test/", headers: ["X-Client": "ios", "Accept": "image/webp,*/*"])
        assertMatch(.header("x-client"), req)
        assertMatch(.header("X-CLIENT", value: "ios"), req)
        assertNoMatch(.header("X-Client", value: "IOS"), req, "header X-Client is IOS (got X-Client: ios)")
        assertMatch(.header("Accept", contains: "image/webp"), req)
        assertNoMatch(.header("Accept", contains: "IMAGE/WEBP"), req, "header Accept contains IMAGE/WEBP (got Accept: image/webp,*/*)")
        assertMatch(try! .header("X-Client", validatingPattern: "^i"), req)
        assertMatch(.headerAbsent("Cookie"), req)
        assertNoMatch(.headerAbsent("x-client"), req, "header x-client is absent (got x-client: ios)")
        assertNoMatch(.header("Cookie"), req, "header Cookie is present (got no Cookie header)")
    }

    func testAcceptsFollowsRFC9110() {
        assertMatch(.accepts("image/webp"), request("http://a.test/"))
        assertMatch(.accepts("image/webp"), request("http://a.test/", headers: ["Accept": "image/*"]))
        assertMatch(.accepts("image/webp"), request("http://a.test/", headers: ["Accept": "*/*;q=0.1"]))
        assertNoMatch(.accepts("image/webp"), request("http://a.test/", headers: ["Accept": "image/webp;q=0, image/*"]),
                      "Accept admits image/webp (got Accept: image/webp;q=0, image/*)")
        assertNoMatch(.accepts("image/webp"), request("http://a.test/", headers: ["Accept": "image/png"]),
                      "Accept admits image/webp (got Accept: image/png)")
    }

    func testBodies() {
        let post = request("POST", "http://a.test/", body: #"{"b": [1, 2], "a": "x"}"#)
        assertMatch(.body(#"{"b": [1, 2], "a": "x"}"#), post)
        assertMatch(.body(containing: #""a""#), post)
        assertMatch(.jsonBody(["a": "x", "b": [1, 2]]), post)
        assertNoMatch(.jsonBody(["a": "y", "b": [1, 2]]), post, #"JSON body is {"a":"y","b":[1,2]} (got body "{"b": [1, 2], "a": "x"}")"#)
        assertNoMatch(.body("x"), request("http://a.test/"), #"body is "x" (got no body)"#)
        assertNoMatch(.jsonBody(["a": 1]), request("POST", "http://a.test/", body: "not json"), #"JSON body is {"a":1} (got body "not json")"#)
    }

    func testCustomMatcherIsNamedInReports() {
        let even = RequestMatcher.custom("has an even id") { Int($0.path.dropFirst())! % 2 == 0 }
        assertMatch(even, request("http://a.test/4"))
        assertNoMatch(even, request("http://a.test/3"), "has an even id (got GET http://a.test/3)")
    }

    func testCombinators() {
        let png = RequestMatcher.host("img.test") && .pathExtension("png")
        assertMatch(png, request("http://img.test/a.png"))
        let both = request("http://cdn.test/a.webp")
        XCTAssertEqual(png.mismatches(for: both).map(\.description), ["host is img.test (got cdn.test)", "extension is png (got webp)"])
        let either = RequestMatcher.pathExtension("png") || .pathExtension("webp")
        assertMatch(either, request("http://a.test/a.webp"))
        assertNoMatch(either, request("http://a.test/a.gif"), "(extension is png or extension is webp) (got gif)")
        let notPNG = !RequestMatcher.pathExtension("png")
        assertMatch(notPNG, request("http://a.test/a.gif"))
        assertNoMatch(notPNG, request("http://a.test/a.png"), "not (extension is png) (got GET http://a.test/a.png)")
        XCTAssertEqual((RequestMatcher.any && .path("/x")).description, "path is /x")
        XCTAssertEqual(RequestMatcher.all([.method("GET"), .path("/x"), .scheme("https")]).description, "method is GET and path is /x and scheme is https")
        assertNoMatch(.anyOf([]), request("http://a.test/"), "not (any request) (got GET http://a.test/)")
    }
}
