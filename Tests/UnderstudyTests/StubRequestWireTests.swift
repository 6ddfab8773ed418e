import Foundation
@testable import Understudy
import XCTest

/// The server builds requests from the wire with a hand parser; it must see exactly what
/// `URLComponents` sees for the same URL, whatever the target holds.
final class StubRequestWireTests: XCTestCase {
    private func assertParsedAlike(_ authority: String, _ target: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let wire = try XCTUnwrap(
            StubRequest(method: "get", scheme: "http", authority: authority, target: target, headers: ["Host": authority], body: nil),
            "wire form of \(authority)\(target)", file: file, line: line
        )
        let reference = StubRequest(method: "GET", url: try XCTUnwrap(URL(string: "http://\(authority)\(target)")), headers: ["Host": authority])
        XCTAssertEqual(wire.method, "GET", file: file, line: line)
        XCTAssertEqual(wire.scheme, reference.scheme, "scheme of \(target)", file: file, line: line)
        XCTAssertEqual(wire.host, reference.host, "host of \(authority)", file: file, line: line)
        XCTAssertEqual(wire.port, reference.port, "port of \(authority)", file: file, line: line)
        XCTAssertEqual(wire.path, reference.path, "path of \(target)", file: file, line: line)
        XCTAssertEqual(wire.pathExtension, reference.pathExtension, "extension of \(target)", file: file, line: line)
        XCTAssertEqual(wire.queryItems.map { "\($0.name)=\($0.value)" }, reference.queryItems.map { "\($0.name)=\($0.value)" }, "query of \(target)", file: file, line: line)
        XCTAssertEqual(wire.urlString, reference.urlString, file: file, line: line)
        XCTAssertEqual(wire.url, reference.url, file: file, line: line)
        XCTAssertEqual(wire, reference, file: file, line: line)
    }

    func testPlainTargetsParseAsURLComponentsDoes() throws {
        try assertParsedAlike("127.0.0.1:8080", "/cats/1.png")
        try assertParsedAlike("IMG.Example.com", "/a.WEBP")
        try assertParsedAlike("img.example.com:80", "/")
        try assertParsedAlike("localhost", "/photos/cat.tar.gz")
        try assertParsedAlike("localhost", "/dir.d/file")
        try assertParsedAlike("localhost", "//double//slashes/")
    }

    func testPortsParseAsURLComponentsDoes() throws {
        // The last two are out of range: left to URLComponents, which reads them its own way.
        let authorities = [
            "localhost:0", "localhost:007", "localhost:65535", "Localhost:443", "10.0.0.1:",
            "localhost:65536", "localhost:99999999999999999999999",
        ]
        for authority in authorities {
            try assertParsedAlike(authority, "/a.png")
        }
        // Not a URL at all: no request, as URL(string:) makes none.
        XCTAssertNil(URL(string: "http://localhost:8o/a.png"))
        XCTAssertNil(StubRequest(method: "GET", scheme: "http", authority: "localhost:8o", target: "/a.png", headers: [:], body: nil))
    }

    func testQueriesParseAsURLComponentsDoes() throws {
        try assertParsedAlike("localhost:1", "/a.png?w=200&h=100")
        try assertParsedAlike("localhost:1", "/a.png?debug&w=")
        try assertParsedAlike("localhost:1", "/a.png?x=1&x=2&&y")
        try assertParsedAlike("localhost:1", "/a.png?")
        try assertParsedAlike("localhost:1", "/a.png?q=a=b")
        try assertParsedAlike("localhost:1", "/a.png?q=a+b&r=%20c")
        try assertParsedAlike("localhost:1", "/search?path=/x/y.png&at=@home")
    }

    func testPercentEscapesDecodeAsURLComponentsDoes() throws {
        try assertParsedAlike("localhost", "/caf%C3%A9/%E2%9C%93.png")
        try assertParsedAlike("localhost", "/a%20b.PNG")
        try assertParsedAlike("localhost", "/a%2Fb.png")
        try assertParsedAlike("localhost", "/a.png?name=%C3%A9t%C3%A9")
    }

    func testUnusualAuthoritiesGoTheSlowWayAndStillParse() throws {
        try assertParsedAlike("[::1]:8080", "/v6.png")
        try assertParsedAlike("user@localhost:8080", "/a.png")
    }

    func testTargetsTheHandParserLeavesAloneStillParse() {
        // A raw space is not valid in a URL; Foundation percent-encodes it, and so do we.
        let spaced = StubRequest(method: "GET", scheme: "http", authority: "localhost", target: "/a b.png", headers: [:], body: nil)
        XCTAssertEqual(spaced?.path, "/a b.png")
        XCTAssertEqual(spaced?.urlString, "http://localhost/a%20b.png")
        // Escapes that decode to no UTF-8 keep URLComponents' reading (nothing is lost).
        let odd = StubRequest(method: "GET", scheme: "http", authority: "localhost", target: "/%FF.png", headers: [:], body: nil)
        XCTAssertNotNil(odd)
    }

    func testHeaderLookupIgnoresASCIICaseWithoutMatchingOtherLetters() {
        let headers: HeaderFields = ["Content-Type": "image/png", "X-Ünïcode": "1"]
        XCTAssertEqual(headers["content-type"], "image/png")
        XCTAssertEqual(headers["CONTENT-TYPE"], "image/png")
        XCTAssertNil(headers["Content_Type"])
        XCTAssertNil(headers["Content-Typf"])
        XCTAssertEqual(headers["x-üNÏCODE"], "1")
        XCTAssertNil(headers["Content-Type "])
    }
}
