import Foundation
import Understudy
import UnderstudyServer
import XCTest

/// Python `requests` (from the package's `.venv`, see `make test-deps`) asks for several ranges,
/// parses the `multipart/byteranges` answer itself and joins the parts; then an unsatisfiable
/// range and `If-Range` by tag and by date.
final class RangeRequestsPythonTests: XCTestCase {
    static let script = #"""
    import sys, requests
    url = sys.argv[1]
    whole = requests.get(url)
    print(whole.status_code, len(whole.content), whole.headers["Accept-Ranges"])

    r = requests.get(url, headers={"Range": "bytes=0-99, 1000-1999, -500"})
    ctype = r.headers["Content-Type"]
    boundary = ctype.split("boundary=", 1)[1].encode()
    chunks = r.content.split(b"\r\n--" + boundary)
    assert chunks[0] == b"" and chunks[-1] == b"--\r\n", (chunks[0][:40], chunks[-1][:40])
    joined = b""
    for chunk in chunks[1:-1]:
        head, _, data = chunk[2:].partition(b"\r\n\r\n")
        fields = dict(line.split(": ", 1) for line in head.decode().split("\r\n"))
        first, last = (int(n) for n in fields["Content-Range"].split(" ")[1].split("/")[0].split("-"))
        assert data == whole.content[first:last + 1], fields["Content-Range"]
        print("part", fields["Content-Type"], fields["Content-Range"], len(data))
        joined += data
    print(r.status_code, ctype.split(";")[0], joined == whole.content[:100] + whole.content[1000:2000] + whole.content[-500:])

    r = requests.get(url, headers={"Range": "bytes=400000-"})
    print(r.status_code, r.headers["Content-Range"], len(r.content))

    etag, modified = whole.headers["ETag"], whole.headers["Last-Modified"]
    for condition in [etag, '"stale"', modified, "Mon, 01 Jan 2001 00:00:00 GMT"]:
        r = requests.get(url, headers={"Range": "bytes=10-19", "If-Range": condition})
        same = r.content == (whole.content[10:20] if r.status_code == 206 else whole.content)
        print("if-range", r.status_code, len(r.content), same)
    """#

    func testRequestsParsesAndJoinsMultipartRangesAndSees416AndIfRange() async throws {
        let directory = try makeTemporaryDirectory("ranges-python")
        let file = directory.appendingPathComponent("photo.png")
        try CachingCurlTests.original.write(to: file)
        let stubs = StubRegistry()
        stubs.stub(.path("/photo.png"), named: "photo", response: .file(file).headers(["Content-Type": "image/png"]))
        let python = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".venv/bin/python").path
        try await withServer(stubs) { server in
            let result = try UnderstudyServerTests.run(python, ["-c", Self.script, server.baseURL.appendingPathComponent("photo.png").absoluteString])
            XCTAssertEqual(result.status, 0, "\(result.stderr) (no requests? run `make test-deps`)")
            XCTAssertEqual(result.text.components(separatedBy: "\n"), [
                "200 300000 bytes",
                "part image/png bytes 0-99/300000 100",
                "part image/png bytes 1000-1999/300000 1000",
                "part image/png bytes 299500-299999/300000 500",
                "206 multipart/byteranges True",
                "416 bytes */300000 0",
                "if-range 206 10 True",
                "if-range 200 300000 True",
                "if-range 206 10 True",
                "if-range 200 300000 True",
                "",
            ], result.stderr)
        }
    }
}
