import Foundation
import Understudy
import UnderstudyImages
import XCTest

/// Validators, 304, 206, multipart and 416 as the core decides them for both transports
/// (RFC 9110 §13 and §14), checked on the answers the responder gives.
final class ConditionalRequestTests: XCTestCase {
    private var directory: URL!
    private var file: URL!
    private let body = Data((0..<100).map { UInt8($0) })

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("understudy-conditional-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        file = directory.appendingPathComponent("bytes.bin")
        try body.write(to: file)
        // A known modification time, so Last-Modified can be checked against it.
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_700_000_000)], ofItemAtPath: file.path)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: directory)
    }

    private func answer(_ response: StubResponse, method: String = "GET", _ headers: HeaderFields = [:]) async -> PreparedResponse {
        let stubs = StubRegistry()
        stubs.stub(.any, named: "s", response: response)
        return await answer(stubs, method: method, headers)
    }

    /// The answer to a canned stub, decided without suspending (for use inside assertions).
    private func answerNow(_ response: StubResponse, method: String = "GET", _ headers: HeaderFields = [:]) -> PreparedResponse {
        let stubs = StubRegistry()
        stubs.stub(.any, named: "s", response: response)
        return answerNow(stubs, method: method, headers)
    }

    private func answerNow(_ stubs: StubRegistry, method: String = "GET", _ headers: HeaderFields = [:]) -> PreparedResponse {
        let responder = StubResponder(registry: stubs, transport: .inProcess, upstream: nil)
        var repeatable: StubRegistry.RepeatableMatch?
        guard case .answer(let answer) = responder.decide(StubRequest(method: method, url: URL(string: "http://h/x")!, headers: headers), repeatable: &repeatable) else {
            XCTFail("not a canned stub")
            return PreparedResponse(status: 0)
        }
        return answer.response
    }

    private func answer(_ stubs: StubRegistry, method: String = "GET", _ headers: HeaderFields = [:]) async -> PreparedResponse {
        let responder = StubResponder(registry: stubs, transport: .inProcess, upstream: nil)
        return await responder.answer(StubRequest(method: method, url: URL(string: "http://h/x")!, headers: headers)).response
    }

    // MARK: - Validators

    func testFileBodyGetsAStrongDigestETagLastModifiedFromTheFileAndAcceptRanges() async throws {
        let first = await answer(.file(file))
        let etag = try XCTUnwrap(first.headers["ETag"])
        XCTAssertNotNil(etag.range(of: #"^"[0-9a-f]{32}"$"#, options: .regularExpression), etag)
        XCTAssertEqual(first.headers["Last-Modified"], "Tue, 14 Nov 2023 22:13:20 GMT")
        XCTAssertEqual(first.headers["Accept-Ranges"], "bytes")
        XCTAssertNil(first.headers["Cache-Control"])
        // The same bytes give the same tag, other bytes another.
        XCTAssertEqual(answerNow(.data(body)).headers["ETag"], etag)
        XCTAssertNotEqual(answerNow(.data(body + Data([1]))).headers["ETag"], etag)
    }

    func testPolicyChoosesWeakFixedOrNoValidatorsAndCacheControl() async throws {
        let weak = await answer(.file(file).cache(CachePolicy(etag: .weak, control: "max-age=60")))
        XCTAssertTrue(weak.headers["ETag"]?.hasPrefix("W/\"") ?? false, "\(weak.headers)")
        XCTAssertEqual(weak.headers["Cache-Control"], "max-age=60")
        let fixed = await answer(.file(file).cache(CachePolicy(etag: .fixed("\"v7\""), lastModified: .date(Date(timeIntervalSince1970: 0)))))
        XCTAssertEqual(fixed.headers["ETag"], "\"v7\"")
        XCTAssertEqual(fixed.headers["Last-Modified"], "Thu, 01 Jan 1970 00:00:00 GMT")
        let none = await answer(.file(file).cache(.none), ["If-None-Match": "*"])
        XCTAssertEqual(none.status, 200)
        XCTAssertNil(none.headers["ETag"])
        XCTAssertNil(none.headers["Last-Modified"])
        // JSON made for the occasion has none by default, and the stub's own header wins.
        XCTAssertNil(answerNow(.json(["a": 1])).headers["ETag"])
        XCTAssertEqual(answerNow(.file(file).headers(["ETag": "\"mine\""]), ["If-None-Match": "\"mine\""]).status, 304)
    }

    // MARK: - 304

    func testIfNoneMatchAnswers304WithValidatorsAndNoBody() async throws {
        let etag = try XCTUnwrap(answerNow(.file(file)).headers["ETag"])
        for value in [etag, "W/\(etag)", "\"other\", \(etag)", "*"] {
            let response = await answer(.file(file).cache(CachePolicy(control: "no-cache")).headers(["Vary": "Accept"]), ["If-None-Match": value])
            XCTAssertEqual(response.status, 304, value)
            XCTAssertEqual(response.body, Data(), value)
            XCTAssertEqual(Set(response.headers.map(\.name)), ["ETag", "Last-Modified", "Cache-Control", "Vary", "X-Understudy-Stub"], value)
            XCTAssertEqual(Array(response.deliveryPlan(method: "GET")), [.sendHead, .end(close: false)])
        }
        XCTAssertEqual(answerNow(.file(file), ["If-None-Match": "\"other\""]).status, 200)
        XCTAssertEqual(answerNow(.file(file), method: "POST", ["If-None-Match": etag]).status, 200, "only GET and HEAD")
    }

    /// A 304, 206 and 416 keep the stub's own fields (a client revalidating reads them), never
    /// the full body's `Content-*` on a 304 or 416 nor its digest on a 206.
    func testNotModifiedPartialAndUnsatisfiableKeepTheStubsOwnFields() async throws {
        let response = StubResponse.file(file).headers([
            "X-Image-Variant": "thumb-2x", "Set-Cookie": "seen=1", "Content-Disposition": "inline; filename=b.bin",
            "Content-Language": "en", "Content-MD5": "0123456789abcdef0123456789abcdef", "Content-Location": "/b.bin",
        ])
        let etag = try XCTUnwrap(answerNow(response).headers["ETag"])
        let notModified = await answer(response, ["If-None-Match": etag])
        XCTAssertEqual(notModified.status, 304)
        XCTAssertEqual(Set(notModified.headers.map(\.name)), [
            "X-Image-Variant", "Set-Cookie", "Content-Location", "ETag", "Last-Modified", "X-Understudy-Stub",
        ])
        XCTAssertEqual(notModified.headers["X-Image-Variant"], "thumb-2x")

        let partial = await answer(response, ["Range": "bytes=10-19"])
        XCTAssertEqual(partial.status, 206)
        XCTAssertEqual(partial.headers["X-Image-Variant"], "thumb-2x")
        XCTAssertEqual(partial.headers["Content-Disposition"], "inline; filename=b.bin")
        XCTAssertEqual(partial.headers["Content-Length"], "10")
        XCTAssertNil(partial.headers["Content-MD5"], "the full body's digest is not the part's")

        let multipart = await answer(response, ["Range": "bytes=0-1,5-6"])
        XCTAssertEqual(multipart.status, 206)
        XCTAssertEqual(multipart.headers["X-Image-Variant"], "thumb-2x")
        XCTAssertNil(multipart.headers["Content-MD5"])

        let unsatisfiable = await answer(response, ["Range": "bytes=500-"])
        XCTAssertEqual(unsatisfiable.status, 416)
        XCTAssertEqual(unsatisfiable.headers["X-Image-Variant"], "thumb-2x")
        XCTAssertEqual(unsatisfiable.headers["Set-Cookie"], "seen=1")
        XCTAssertNil(unsatisfiable.headers["Content-Disposition"])
        XCTAssertNil(unsatisfiable.headers["Content-Type"])
        XCTAssertEqual(unsatisfiable.headers["Content-Range"], "bytes */100")
    }

    func testIfModifiedSinceAnswers304UnlessIfNoneMatchSaysOtherwise() async {
        XCTAssertEqual(answerNow(.file(file), ["If-Modified-Since": "Tue, 14 Nov 2023 22:13:20 GMT"]).status, 304)
        XCTAssertEqual(answerNow(.file(file), ["If-Modified-Since": "Wed, 15 Nov 2023 00:00:00 GMT"]).status, 304)
        XCTAssertEqual(answerNow(.file(file), ["If-Modified-Since": "Tuesday, 14-Nov-23 22:13:20 GMT"]).status, 304, "RFC 850 date")
        XCTAssertEqual(answerNow(.file(file), ["If-Modified-Since": "Tue Nov 14 22:13:20 2023"]).status, 304, "asctime date")
        XCTAssertEqual(answerNow(.file(file), ["If-Modified-Since": "Tue, 14 Nov 2023 22:13:19 GMT"]).status, 200)
        XCTAssertEqual(answerNow(.file(file), ["If-Modified-Since": "yesterday"]).status, 200)
        let both: HeaderFields = ["If-None-Match": "\"other\"", "If-Modified-Since": "Wed, 15 Nov 2023 00:00:00 GMT"]
        XCTAssertEqual(answerNow(.file(file), both).status, 200, "If-None-Match is evaluated instead of If-Modified-Since")
    }

    // MARK: - Ranges

    func testSingleRangesInAllThreeForms() async {
        for (header, range) in [("bytes=0-9", 0..<10), ("bytes=90-", 90..<100), ("bytes=-15", 85..<100), ("bytes=95-200", 95..<100)] {
            let response = await answer(.file(file), ["Range": header])
            XCTAssertEqual(response.status, 206, header)
            XCTAssertEqual(response.body, body.subdata(in: range), header)
            XCTAssertEqual(response.headers["Content-Range"], "bytes \(range.lowerBound)-\(range.upperBound - 1)/100", header)
            XCTAssertEqual(response.headers["Content-Length"], String(range.count), header)
        }
    }

    func testRangeHeaderSpellingsAsRFC9110AllowsThem() {
        // The unit is case-insensitive; spaces and tabs around list items and before the unit
        // are allowed, and empty list items are skipped.
        for (header, range) in [("Bytes=0-9", 0..<10), ("  bytes=\t5-6 ", 5..<7), ("BYTES=-3", 97..<100), ("bytes=, 0-1 ,", 0..<2)] {
            let response = answerNow(.file(file), ["Range": header])
            XCTAssertEqual(response.status, 206, header)
            XCTAssertEqual(response.headers["Content-Range"], "bytes \(range.lowerBound)-\(range.upperBound - 1)/100", header)
        }
        // Not a range set: ignored, the whole body sent.
        for ignored in ["bytes=99999999999999999999-", "bytes=1 0-20", "bytes=+1-2", "bytes=٣-4", "bytes=-", "bytes\u{1D}0-1", " bytes"] {
            XCTAssertEqual(answerNow(.file(file), ["Range": ignored]).status, 200, ignored)
        }
    }

    func testSeveralRangesAnswerMultipartByteranges() async throws {
        let response = await answer(.file(file).headers(["Content-Type": "application/x-test"]), ["Range": "bytes=0-4, 10-14,-3"])
        XCTAssertEqual(response.status, 206)
        let contentType = try XCTUnwrap(response.headers["Content-Type"])
        let boundary = try XCTUnwrap(contentType.components(separatedBy: "boundary=").last)
        XCTAssertTrue(contentType.hasPrefix("multipart/byteranges; boundary="), contentType)
        XCTAssertEqual(response.headers["Content-Length"], String(response.body.count))
        let text = String(decoding: response.body, as: UTF8.self)
        XCTAssertEqual(text.components(separatedBy: "--\(boundary)\r\n").count - 1, 3)
        XCTAssertTrue(text.hasSuffix("\r\n--\(boundary)--\r\n"))
        XCTAssertTrue(text.contains("Content-Type: application/x-test\r\nContent-Range: bytes 10-14/100\r\n\r\n"))
        XCTAssertNotNil(response.body.range(of: Data([0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0D, 0x0A])), "the part's bytes, then CRLF")
    }

    func testUnsatisfiableRangeAnswers416AndBadRangesAreIgnored() async {
        let response = await answer(.file(file), ["Range": "bytes=100-"])
        XCTAssertEqual(response.status, 416)
        XCTAssertEqual(response.headers["Content-Range"], "bytes */100")
        XCTAssertEqual(response.body, Data())
        XCTAssertEqual(answerNow(.file(file), ["Range": "bytes=-0"]).status, 416)
        for ignored in ["bytes=5-1", "bytes=a-b", "items=0-1", "bytes=", "bytes=1-2-3"] {
            let whole = await answer(.file(file), ["Range": ignored])
            XCTAssertEqual(whole.status, 200, ignored)
            XCTAssertEqual(whole.body, body, ignored)
        }
        XCTAssertEqual(answerNow(.file(file).ranges(false), ["Range": "bytes=0-1"]).status, 200)
        XCTAssertEqual(answerNow(.file(file), ["Range": "bytes=0-60,40-99"]).status, 200, "ranges adding up to more than the body")
        XCTAssertEqual(answerNow(.file(file), ["Range": "bytes=" + Array(repeating: "0-0", count: 65).joined(separator: ",")]).status, 200, "more than 64 ranges")
        XCTAssertNil(answerNow(.file(file).ranges(false)).headers["Accept-Ranges"])
    }

    func testIfRangeByStrongETagOrExactDate() async throws {
        let etag = try XCTUnwrap(answerNow(.file(file)).headers["ETag"])
        XCTAssertEqual(answerNow(.file(file), ["Range": "bytes=0-1", "If-Range": etag]).status, 206)
        XCTAssertEqual(answerNow(.file(file), ["Range": "bytes=0-1", "If-Range": "\"old\""]).status, 200)
        XCTAssertEqual(answerNow(.file(file), ["Range": "bytes=0-1", "If-Range": "W/\(etag)"]).status, 200, "weak tags never match If-Range")
        XCTAssertEqual(answerNow(.file(file), ["Range": "bytes=0-1", "If-Range": "Tue, 14 Nov 2023 22:13:20 GMT"]).status, 206)
        XCTAssertEqual(answerNow(.file(file), ["Range": "bytes=0-1", "If-Range": "Wed, 15 Nov 2023 00:00:00 GMT"]).status, 200)
    }

    func testHeadWithRangeSendsThe206HeadWithoutABody() async {
        let response = await answer(.file(file), method: "HEAD", ["Range": "bytes=0-9"])
        XCTAssertEqual(response.status, 206)
        XCTAssertEqual(response.headers["Content-Length"], "10")
        XCTAssertEqual(Array(response.deliveryPlan(method: "HEAD")), [.sendHead, .end(close: false)])
    }

    func testRangesApplyToTheTranscodedBytesAndTruncationToTheRange() async throws {
        let stubs = StubRegistry(transcoder: ImageTranscoder())
        stubs.stub(.any, response: .image(.generated(width: 40, height: 30, pattern: .gradient), as: .png).truncated(after: 20))
        let whole = await answer(stubs)
        let ranged = await answer(stubs, ["Range": "bytes=50-149"])
        XCTAssertEqual(ranged.status, 206)
        XCTAssertEqual(ranged.body, whole.body.subdata(in: 50..<150))
        XCTAssertEqual(ranged.headers["Content-Range"], "bytes 50-149/\(whole.body.count)")
        XCTAssertEqual(Array(ranged.deliveryPlan(method: "GET")), [.sendHead, .sendBody(0..<20), .abort])
    }

    func testAnswersMadeFromAKeptRenderingAreKeptToo() async {
        let stubs = StubRegistry()
        stubs.stub(.any, response: .file(file))
        let whole = await answer(stubs)
        let first = await answer(stubs, ["Range": "bytes=0-9"])
        let second = await answer(stubs, ["Range": "bytes=0-9"])
        XCTAssertNotNil(first.renderID)
        XCTAssertEqual(first.renderID, second.renderID, "the same 206 is made once")
        XCTAssertNotEqual(first.renderID, whole.renderID)
        XCTAssertNotEqual(answerNow(stubs, ["Range": "bytes=0-8"]).renderID, first.renderID)
    }

    // MARK: - Pauses

    func testAPauseStopsTheBodyAtItsByteEvenWhenPaced() {
        var response = PreparedResponse(status: 200, body: Data(count: 100))
        response.pause = BodyPause(afterBytes: 30, gate: "g")
        XCTAssertEqual(Array(response.deliveryPlan(method: "GET")), [.sendHead, .sendBody(0..<30), .pause(gate: "g"), .sendBody(30..<100), .end(close: false)])
        response.pause = BodyPause(afterBytes: 50, gate: "g")
        response.bandwidth = .bytesPerSecond(1_000)
        XCTAssertEqual(Array(response.deliveryPlan(method: "GET")), [
            .sendHead, .wait(.milliseconds(50)), .sendBody(0..<50), .pause(gate: "g"), .wait(.milliseconds(50)), .sendBody(50..<100),
            .end(close: false),
        ], "a slice ends at the pause")
        response.pause = BodyPause(afterBytes: 100, gate: "g")
        response.bandwidth = nil
        XCTAssertEqual(Array(response.deliveryPlan(method: "GET")), [.sendHead, .sendBody(0..<100), .end(close: false)], "nothing left to hold")
    }
}
