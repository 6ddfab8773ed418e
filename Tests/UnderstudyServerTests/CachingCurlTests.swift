import Foundation
import Understudy
import UnderstudyServer
import XCTest

/// Caching, ranges and resuming as curl sees them over the wire: `-r`, `-C -` after a cut,
/// `-z` and `If-None-Match`, with the journal recording what was answered.
final class CachingCurlTests: XCTestCase {
    /// 300 KB, so whole bodies and large ranges go out with sendfile.
    static let original = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) })

    private func makeFile() throws -> URL {
        let file = try makeTemporaryDirectory("caching").appendingPathComponent("big.bin")
        try Self.original.write(to: file)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_700_000_000)], ofItemAtPath: file.path)
        return file
    }

    func testRangesInAllFormsAndHeadFromCurl() async throws {
        let stubs = StubRegistry()
        stubs.stub(.path("/big.bin"), named: "big", response: .file(try makeFile()))
        try await withServer(stubs) { server in
            let url = server.baseURL.appendingPathComponent("big.bin").absoluteString
            for (range, bytes) in [("0-99", 0..<100), ("100000-299999", 100_000..<300_000), ("-5000", 295_000..<300_000), ("299990-", 299_990..<300_000)] {
                // Twice: the second is the kept 206, framed once.
                for _ in 0..<2 {
                    let result = try curl(["-r", range, "-w", "\n%{http_code} %{size_download}", url])
                    XCTAssertEqual(result.status, 0, result.stderr)
                    XCTAssertEqual(result.stdout.prefix(bytes.count), Self.original.subdata(in: bytes), range)
                    XCTAssertEqual(String(decoding: result.stdout.dropFirst(bytes.count), as: UTF8.self), "\n206 \(bytes.count)", range)
                }
            }
            let head = try curl(["--head", "-r", "0-9", url])
            XCTAssertTrue(head.text.hasPrefix("HTTP/1.1 206 Partial Content\r\n"), head.text)
            XCTAssertTrue(head.text.contains("Content-Range: bytes 0-9/300000\r\n"), head.text)
            XCTAssertTrue(head.text.contains("Content-Length: 10\r\n"), head.text)
            let unsatisfiable = try curl(["-r", "300000-", "-w", "%{http_code}", "-D", "-", url])
            XCTAssertTrue(unsatisfiable.text.contains("Content-Range: bytes */300000"), unsatisfiable.text)
            XCTAssertTrue(unsatisfiable.text.hasSuffix("416"), unsatisfiable.text)
        }
        let statuses = stubs.journal.interactions.map { "\($0.status ?? 0) \($0.bodyBytesSent)" }
        XCTAssertEqual(statuses, ["206 100", "206 100", "206 200000", "206 200000", "206 5000", "206 5000", "206 10", "206 10", "206 0", "416 0"])
    }

    func testACutDownloadResumesWithCurlAndJoinsToTheOriginalBytes() async throws {
        let file = try makeFile()
        let stubs = StubRegistry()
        // Cut after 123,456 bytes the first time; whole (and so ranged) afterwards.
        stubs.stub(.path("/resume.bin"), named: "resume", responses: [.file(file).truncated(after: 123_456), .file(file)])
        let output = try makeTemporaryDirectory("resume").appendingPathComponent("download.bin")
        try await withServer(stubs) { server in
            let url = server.baseURL.appendingPathComponent("resume.bin").absoluteString
            let cut = try curl(["-o", output.path, url])
            XCTAssertEqual(cut.status, 18, "curl: partial file: \(cut.stderr)")
            XCTAssertEqual(try Data(contentsOf: output).count, 123_456)
            let resumed = try curl(["-C", "-", "-o", output.path, "-w", "%{http_code}", url])
            XCTAssertEqual(resumed.status, 0, resumed.stderr)
            XCTAssertEqual(resumed.text, "206")
            XCTAssertEqual(try Data(contentsOf: output), Self.original, "the resumed bytes join to the original")
        }
        let journal = stubs.journal.interactions
        XCTAssertEqual(journal.map(\.outcome), [.truncated(bytes: 123_456), .completed])
        XCTAssertEqual(journal.last?.request.headers["Range"], "bytes=123456-")
        XCTAssertEqual(journal.last?.responseHeaders["Content-Range"], "bytes 123456-299999/300000")
        XCTAssertEqual(journal.last?.bodyBytesSent, 300_000 - 123_456)
    }

    func testCurlRevalidatesWithIfModifiedSinceAndIfNoneMatch() async throws {
        let stubs = StubRegistry()
        stubs.stub(.path("/big.bin"), named: "big", response: .file(try makeFile()).cache(CachePolicy(control: "no-cache")))
        try await withServer(stubs) { server in
            let url = server.baseURL.appendingPathComponent("big.bin").absoluteString
            let first = try curl(["-D", "-", "-o", "/dev/null", url])
            let etag = try XCTUnwrap(first.text.components(separatedBy: "\r\n").first { $0.hasPrefix("ETag: ") }?.dropFirst(6))
            XCTAssertTrue(first.text.contains("Last-Modified: Tue, 14 Nov 2023 22:13:20 GMT\r\n"), first.text)
            XCTAssertTrue(first.text.contains("Accept-Ranges: bytes\r\n"), first.text)

            // -z sends If-Modified-Since with the date given.
            let notModified = try curl(["-z", "Tue, 14 Nov 2023 22:13:20 GMT", "-D", "-", "-w", "%{http_code} %{size_download}", url])
            XCTAssertTrue(notModified.text.hasPrefix("HTTP/1.1 304 Not Modified\r\n"), notModified.text)
            XCTAssertTrue(notModified.text.hasSuffix("304 0"), notModified.text)
            XCTAssertTrue(notModified.text.contains("ETag: \(etag)\r\n"), notModified.text)
            XCTAssertTrue(notModified.text.contains("Cache-Control: no-cache\r\n"), notModified.text)
            XCTAssertFalse(notModified.text.contains("Content-Length"), notModified.text)
            let older = try curl(["-z", "Mon, 13 Nov 2023 00:00:00 GMT", "-o", "/dev/null", "-w", "%{http_code} %{size_download}", url])
            XCTAssertEqual(older.text, "200 300000")

            let matched = try curl(["-H", "If-None-Match: \(etag)", "-o", "/dev/null", "-w", "%{http_code} %{size_download}", url])
            XCTAssertEqual(matched.text, "304 0")
            let changed = try curl(["-H", "If-None-Match: \"not-it\"", "-o", "/dev/null", "-w", "%{http_code} %{size_download}", url])
            XCTAssertEqual(changed.text, "200 300000")
        }
        XCTAssertEqual(stubs.journal.interactions.map { $0.status ?? 0 }, [200, 304, 200, 304, 200])
    }

    /// A 304 and a 206 keep the stub's own fields over the wire, on HTTP/1.1 and HTTP/2, and a
    /// 304 sends none of the full body's `Content-*`.
    func testNotModifiedAndPartialKeepTheStubsOwnFieldsOnBothProtocols() async throws {
        let stubs = StubRegistry()
        stubs.stub(.path("/big.bin"), named: "big", response: .file(try makeFile()).headers([
            "X-Image-Variant": "thumb-2x", "Content-Disposition": "inline", "Content-Type": "image/x-test",
        ]))
        try await withServer(stubs) { server in
            let url = server.baseURL.appendingPathComponent("big.bin").absoluteString
            for version in ["--http1.1", "--http2-prior-knowledge"] {
                let first = try curl([version, "-D", "-", "-o", "/dev/null", url])
                let etag = try XCTUnwrap(first.text.components(separatedBy: "\r\n").first { $0.lowercased().hasPrefix("etag: ") }?.dropFirst(6))
                let notModified = try curl([version, "-H", "If-None-Match: \(etag)", "-D", "-", "-o", "/dev/null", url])
                let lines = notModified.text.lowercased().components(separatedBy: "\r\n")
                XCTAssertTrue(lines.first?.hasPrefix("http/") == true && lines.first?.contains(" 304") == true, notModified.text)
                XCTAssertTrue(lines.contains("x-image-variant: thumb-2x"), notModified.text)
                XCTAssertTrue(lines.contains("x-understudy-stub: big"), notModified.text)
                XCTAssertFalse(lines.contains { $0.hasPrefix("content-") }, "no Content-* on a 304: \(notModified.text)")

                let partial = try curl([version, "-r", "0-9", "-D", "-", "-o", "/dev/null", url])
                let partialLines = partial.text.lowercased().components(separatedBy: "\r\n")
                XCTAssertTrue(partialLines.first?.contains(" 206") == true, partial.text)
                for line in ["x-image-variant: thumb-2x", "content-disposition: inline", "content-type: image/x-test", "content-length: 10"] {
                    XCTAssertTrue(partialLines.contains(line), "\(line) in \(partial.text)")
                }
            }
        }
        XCTAssertEqual(stubs.journal.interactions.map { $0.status ?? 0 }, [200, 304, 206, 200, 304, 206])
    }
}
