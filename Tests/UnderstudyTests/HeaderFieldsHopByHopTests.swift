import Understudy
import XCTest

/// The one hop-by-hop filter: the names each caller gives, the fields `Connection` names (any
/// case, any spacing), order and spelling of what is kept.
final class HeaderFieldsHopByHopTests: XCTestCase {
    private let headers = HeaderFields([
        ("Content-Type", "image/png"), ("Connection", "close, X-Private"), ("x-private", "1"), ("Keep-Alive", "timeout=5"),
        ("TE", "trailers"), ("ETag", "\"a\""), ("Trailer", "Digest"), ("connection", " X-Other ,Upgrade"), ("X-Other", "2"),
        ("Proxy-Authenticate", "Basic"), ("Transfer-Encoding", "chunked"), ("Content-Length", "4"), ("Upgrade", "h2c"),
    ])

    func testRemovingHopByHopDropsAProxysNamesAndThoseConnectionNames() {
        XCTAssertEqual(headers.removingHopByHop().fields.map(\.name), ["Content-Type", "ETag", "Content-Length"])
        XCTAssertEqual(headers.removingHopByHop(also: ["content-length"]).fields.map(\.name), ["Content-Type", "ETag"])
        XCTAssertEqual(headers.removingHopByHop()["etag"], "\"a\"", "values kept as they are")
    }

    func testEachCallerSaysWhichNamesAreHopByHopForIt() {
        var kept: [String] = []
        headers.forEachEndToEnd(hopByHop: ["connection", "keep-alive", "transfer-encoding", "upgrade"]) { name, field in
            kept.append("\(name)=\(field.name)")
        }
        XCTAssertEqual(kept, [
            "content-type=Content-Type", "te=TE", "etag=ETag", "trailer=Trailer", "proxy-authenticate=Proxy-Authenticate",
            "content-length=Content-Length",
        ], "lower-case names beside the fields as given, in order; what Connection names goes whatever the set")
    }

    func testWithoutConnectionOnlyTheGivenNamesGo() {
        var kept: [String] = []
        HeaderFields([("Keep-Alive", "1"), ("X-Private", "1"), ("Age", "3")]).forEachEndToEnd { name, _ in kept.append(name) }
        XCTAssertEqual(kept, ["x-private", "age"])
    }
}
