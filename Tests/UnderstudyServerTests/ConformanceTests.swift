import Foundation
import Understudy
import UnderstudyImages
import UnderstudyServer
import XCTest
import UnderstudyTestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One test, two transports: every response kind, HEAD, unmatched requests, sequences, `times`
/// and delays go through the URL protocol in-process and through the NIO server with the same
/// stubs and the same URLSession calls. Status, headers (all but ``TransportPair/transportOnlyHeaders``)
/// and body bytes must be identical, and so must the journal entries (stub, status, body bytes
/// sent, outcome). Each case also checks its own expectation, so both transports agreeing on a
/// wrong answer still fails. Redirects, faults, forwards and bandwidth have their own files.
final class ConformanceTests: XCTestCase {
    /// A stub answering `/kind`, and what a client must see from it.
    struct Kind {
        let name: String
        let response: StubResponse
        var requestHeaders: [String: String] = [:]
        let status: Int
        /// The Content-Type the client sees; `nil` when it must have none.
        let contentType: String?
        /// Checks the body bytes; throws or fails when they are wrong.
        var checkBody: (Data) throws -> Void = { _ in }
    }

    func testEveryResponseKindIsIdenticalOnBothTransports() async throws {
        let source = try ImageGenerator.generate(width: 24, height: 16, pattern: .checkerboard)
        let png = try source.pngData()
        // Without the C codecs (Linux with default traits off) WebP is not encoded: the WebP
        // kinds then expect the error that says so, on both transports alike.
        let webp: Data? = ImageKind.webp.canEncode ? try source.webPLosslessData() : nil
        let directory = try makeTemporaryDirectory("conformance")
        let textFile = directory.appendingPathComponent("note.txt")
        try Data("file body\n".utf8).write(to: textFile)
        let pngFile = directory.appendingPathComponent("cat.png")
        try png.write(to: pngFile)
        func decodes(to expected: RGBAImage, as kind: ImageKind) -> (Data) throws -> Void {
            { data in
                XCTAssertEqual(ImageKind.detect(data), kind)
                XCTAssertEqual(try RGBAImage(decoding: data), expected)
            }
        }
        func text(_ expected: String) -> (Data) throws -> Void {
            { XCTAssertEqual(String(decoding: $0, as: UTF8.self), expected) }
        }

        var kinds: [Kind] = [
            Kind(name: "status 418", response: .status(418), status: 418, contentType: nil, checkBody: { XCTAssertEqual($0, Data()) }),
            Kind(name: "text with status and headers", response: .text("hello").status(203).headers(["X-A": "1", "Cache-Control": "max-age=60"]),
                 status: 203, contentType: "text/plain; charset=utf-8", checkBody: text("hello")),
            Kind(name: "data with a content type", response: .data(Data("a,b\n".utf8), contentType: "text/csv"),
                 status: 200, contentType: "text/csv", checkBody: text("a,b\n")),
            Kind(name: "data sniffed as PNG", response: .data(png), status: 200, contentType: "image/png", checkBody: { XCTAssertEqual($0, png) }),
            Kind(name: "untyped data", response: .data(Data([0, 1, 2, 3])), status: 200, contentType: "application/octet-stream",
                 checkBody: { XCTAssertEqual($0, Data([0, 1, 2, 3])) }),
            Kind(name: "a stub's Content-Type wins", response: .data(png).headers(["Content-Type": "application/x-cat"]),
                 status: 200, contentType: "application/x-cat", checkBody: { XCTAssertEqual($0, png) }),
            Kind(name: "JSON", response: .json(["hits": 3, "tags": ["a", "b"]]), status: 200, contentType: "application/json",
                 checkBody: { XCTAssertEqual(try JSONValue(parsing: $0), ["hits": 3, "tags": ["a", "b"]]) }),
            Kind(name: "JSON encoding a value", response: try .json(encoding: ["b": 2, "a": 1]), status: 200, contentType: "application/json",
                 checkBody: text(#"{"a":1,"b":2}"#)),
            Kind(name: "text file", response: .file(textFile), status: 200, contentType: "text/plain; charset=utf-8", checkBody: text("file body\n")),
            Kind(name: "PNG file", response: .file(pngFile), status: 200, contentType: "image/png", checkBody: { XCTAssertEqual($0, png) }),
            Kind(name: "generated image as PNG", response: .image(.generated(width: 24, height: 16, pattern: .checkerboard), as: .png),
                 status: 200, contentType: "image/png", checkBody: decodes(to: source, as: .png)),
            Kind(name: "negotiated, nothing acceptable", response: .image(.data(png), as: .negotiated), requestHeaders: ["Accept": "text/html"],
                 status: 406, contentType: "text/plain; charset=utf-8"),
            Kind(name: "text transcoded (not an image)", response: .text("not an image").transcoded(to: .png), status: 500,
                 contentType: "text/plain; charset=utf-8"),
            Kind(name: "unreadable file", response: .file(directory.appendingPathComponent("gone.png")), status: 500,
                 contentType: "text/plain; charset=utf-8"),
        ]
        if let webp {
            kinds += [
                Kind(name: "WebP transcoded to PNG", response: .image(.data(webp), as: .png), status: 200, contentType: "image/png",
                     checkBody: decodes(to: source, as: .png)),
                Kind(name: "PNG file transcoded to lossless WebP", response: .image(.file(pngFile), as: .webpLossless), status: 200,
                     contentType: "image/webp", checkBody: decodes(to: source, as: .webp)),
                Kind(name: "canned WebP bytes transcoded to PNG", response: .data(webp).transcoded(to: .png), status: 200, contentType: "image/png",
                     checkBody: decodes(to: source, as: .png)),
                Kind(name: "negotiated to WebP", response: .image(.data(png), as: .negotiated), requestHeaders: ["Accept": "image/webp,*/*;q=0.8"],
                     status: 200, contentType: "image/webp", checkBody: decodes(to: source, as: .webp)),
            ]
        } else {
            let cannot = "cannot encode WebP on \(expectedCodecPlatform): its codecs \(expectedEncodableFormats)"
            kinds += [
                Kind(name: "PNG file as lossless WebP, which this build cannot encode", response: .image(.file(pngFile), as: .webpLossless),
                     status: 500, contentType: "text/plain; charset=utf-8",
                     checkBody: { XCTAssertTrue(String(decoding: $0, as: UTF8.self).contains(cannot), String(decoding: $0, as: UTF8.self)) }),
                Kind(name: "negotiated among WebP and PNG: PNG, the one this build encodes", response: .image(.data(png), as: .negotiated),
                     requestHeaders: ["Accept": "image/webp,*/*;q=0.8"], status: 200, contentType: "image/png", checkBody: decodes(to: source, as: .png)),
            ]
        }
        for kind in kinds {
            let observed = try await conform(kind.name, { $0.stub(.path("/kind"), named: "kind", response: kind.response) }) { client in
                await client.fetch("/kind", headers: kind.requestHeaders)
            }
            let result = try XCTUnwrap(observed.results.first, kind.name)
            XCTAssertEqual(result.status, kind.status, "\(kind.name): \(result)")
            XCTAssertEqual(result.header("Content-Type"), kind.contentType, "\(kind.name): \(result)")
            XCTAssertEqual(result.header("X-Understudy-Stub"), "kind", "\(kind.name): \(result)")
            if let body = result.body {
                XCTAssertEqual(result.header("Content-Length").flatMap(Int.init) ?? 0, kind.status == 204 ? 0 : body.count, kind.name)
                try kind.checkBody(body)
            }
            XCTAssertEqual(observed.journal.map(\.stubName), ["kind"], kind.name)
            XCTAssertEqual(observed.journal.map(\.bodyBytesSent), [result.body?.count ?? -1], kind.name)
        }
    }

    /// 204 and 304 have no body, and so no Content-Length (RFC 9110 8.6): on both transports.
    func testNoBodyStatusesCarryNoContentLength() async throws {
        let observed = try await conform("204 and 304", { stubs in
            stubs.stub(.path("/none"), named: "none", response: .status(204))
            stubs.stub(.path("/cached"), named: "cached", response: .status(304).headers(["ETag": "\"v1\""]))
        }) { client in
            await client.fetch("/none")
            await client.fetch("/cached")
        }
        XCTAssertEqual(observed.results.map(\.status), [204, 304])
        XCTAssertEqual(observed.results.map(\.body), [Data(), Data()])
        XCTAssertEqual(observed.results.map { $0.header("Content-Length") }, [nil, nil])
        XCTAssertEqual(observed.results.last?.header("ETag"), "\"v1\"")
    }

    func testAnswersFromHandlersIncludingOnesThatThrow() async throws {
        struct NoCats: Error, CustomStringConvertible {
            var description: String { "no cats today" }
        }
        let observed = try await conform("handlers", ignoringHeaders: TransportPair.madeAtRequestTime, { stubs in
            stubs.stub(.path("/echo"), named: "echo") { request in
                .text("\(request.method) \(request.path) \(request.url.query ?? "-") \(String(decoding: request.body ?? Data(), as: UTF8.self))")
            }
            stubs.stub(.path("/throws"), named: "throws") { _ in throw NoCats() }
        }) { client in
            await client.fetch("/echo?q=1")
            await client.fetch("/echo", method: "POST", body: Data(#"{"q":"cat"}"#.utf8), headers: ["Content-Type": "application/json"])
            await client.fetch("/throws")
        }
        XCTAssertEqual(observed.results.map(\.text), ["GET /echo q=1 ", #"POST /echo - {"q":"cat"}"#, #"stub "throws" failed: no cats today"#])
        XCTAssertEqual(observed.results.map(\.status), [200, 200, 500])
        XCTAssertEqual(observed.journal.map(\.outcome), ["completed", "completed", #"failed: stub "throws" failed: no cats today"#])
    }

    func testJSONBodyMatchingOnPost() async throws {
        let observed = try await conform("JSON body matching", { stubs in
            stubs.stub(.method("POST") && .jsonBody(["q": "cat"]), named: "search", priority: 1, response: .json(["hits": 3]))
            stubs.stub(.method("POST"), named: "other", response: .text("no hits"))
        }) { client in
            await client.fetch("/search", method: "POST", body: Data(#"{"q":"cat"}"#.utf8), headers: ["Content-Type": "application/json"])
            await client.fetch("/search", method: "POST", body: Data(#"{"q":"dog"}"#.utf8), headers: ["Content-Type": "application/json"])
        }
        XCTAssertEqual(try JSONValue(parsing: observed.results[0].body ?? Data()), ["hits": 3])
        XCTAssertEqual(observed.results[1].text, "no hits")
        XCTAssertEqual(observed.journal.map(\.stubName), ["search", "other"])
    }

    /// A stub file's `base64:` body, loaded into both registries from one file.
    func testBase64BodyFromAStubFile() async throws {
        let directory = try makeTemporaryDirectory("conformance-files")
        let bytes = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13])
        try """
            stubs:
              - name: b64
                request: { path: /b64 }
                response: { base64: \(bytes.base64EncodedString()), headers: { X-From: file } }
            """.write(to: directory.appendingPathComponent("b64.yaml"), atomically: true, encoding: .utf8)
        let observed = try await conform("base64", { try $0.load(from: directory) }) { client in
            await client.fetch("/b64")
        }
        XCTAssertEqual(observed.results.first?.body, bytes)
        XCTAssertEqual(observed.results.first?.header("X-From"), "file")
        XCTAssertEqual(observed.results.first?.header("Content-Type"), "image/png", "sniffed from the PNG signature")
    }

    func testHeadSendsTheHeadersOfGetAndNoBody() async throws {
        let body = Data(count: 50)
        let observed = try await conform("HEAD", { stubs in
            stubs.stub(.path("/p.png") && .method("GET"), named: "p", response: .data(body, contentType: "image/png"))
            stubs.stub(.path("/j"), named: "j", response: .json(["a": 1]).headers(["ETag": "\"1\""]))
            stubs.stub(.path("/slow"), named: "slow", response: .data(Data(count: 4_000)).throttled(to: .bytesPerSecond(4_000)))
        }) { client in
            await client.fetch("/p.png", method: "HEAD")
            await client.fetch("/j", method: "HEAD")
            await client.fetch("/slow", method: "HEAD")
        }
        XCTAssertEqual(observed.results.map(\.body), [Data(), Data(), Data()])
        XCTAssertEqual(observed.results.map { $0.header("Content-Length") }, ["50", "7", "4000"])
        XCTAssertEqual(observed.results[1].header("ETag"), "\"1\"")
        XCTAssertEqual(observed.journal.map(\.bodyBytesSent), [0, 0, 0])
        XCTAssertLessThan(observed.durations[2], 0.5, "a throttled HEAD has no body to pace")
    }

    /// The 404 for an unmatched request carries the near-miss report, byte for byte the same
    /// in-process (`unmatched: .notFound`) and over the wire.
    func testUnmatchedRequestsGetThe404ReportOnBothTransports() async throws {
        var base = ""
        let observed = try await conform("unmatched", { stubs in
            stubs.stub(.path("/cat.png") && .method("GET"), named: "cat", response: .data(Data(count: 10)))
        }) { client in
            base = client.base.absoluteString
            await client.fetch("/dog.png")
            await client.fetch("/cat.png", method: "POST", body: Data("x".utf8))
        }
        XCTAssertEqual(observed.results.map(\.status), [404, 404])
        XCTAssertEqual(observed.results.first?.header("Content-Type"), "text/plain; charset=utf-8")
        XCTAssertEqual(observed.results.first?.text, """
            No stub matched GET \(base)/dog.png.
            Nearest stubs:
              1. "cat" (1 of 2 parts matched): path is /cat.png (got /dog.png)

            """)
        XCTAssertEqual(observed.journal.map(\.outcome), ["unmatched", "unmatched"])
        XCTAssertEqual(observed.journal.map(\.status), [404, 404])
        XCTAssertEqual(observed.journal.map(\.bodyBytesSent), observed.results.map { $0.body?.count ?? -1 },
                       "the report's bytes were sent")
    }

    func testSequencesAndTimesAdvanceAlikeOnBothTransports() async throws {
        let observed = try await conform("sequences and times", { stubs in
            stubs.stub(.path("/seq"), named: "seq", responses: [.text("one"), .text("two").status(201), .status(503)])
            stubs.stub(.path("/limited"), named: "limited", priority: 1, times: 2, response: .text("limited"))
            stubs.stub(.path("/limited"), named: "fallback", response: .text("fallback"))
            stubs.stub(.path("/once"), named: "once", times: 1, response: .text("once"))
        }) { client in
            for _ in 0..<4 { await client.fetch("/seq") }
            for _ in 0..<3 { await client.fetch("/limited") }
            for _ in 0..<2 { await client.fetch("/once") }
        }
        XCTAssertEqual(observed.results.map(\.status), [200, 201, 503, 503, 200, 200, 200, 200, 404])
        XCTAssertEqual(observed.results.prefix(8).map(\.text), ["one", "two", "", "", "limited", "limited", "fallback", "once"])
        XCTAssertEqual(observed.journal.map(\.stubName), ["seq", "seq", "seq", "seq", "limited", "limited", "fallback", "once", nil])
    }

    func testDelaysComeBeforeTheAnswerOnBothTransports() async throws {
        let observations = try await TransportPair.observe({ stubs in
            stubs.stub(.path("/late"), named: "late", response: .text("late").delayed(by: .milliseconds(300)))
            stubs.stub(.path("/late-fault"), named: "late-fault", response: .failure(.emptyResponse).delayed(by: .milliseconds(300)))
            stubs.stub(.path("/late-redirect"), named: "late-redirect", response: .redirect(to: "/late", status: 302).delayed(by: .milliseconds(200)))
        }) { client in
            // The fault first: after a fault on a reused keep-alive connection, URLSession over
            // the wire (libcurl) sends the request again on a new one, a second journal entry.
            await client.fetch("/late-fault")
            await client.fetch("/late")
            await client.fetch("/late-redirect")
        }
        // The fault's URLError code is transport-specific (ConformanceFaultTests holds both to
        // the documented codes); the rest must match.
        XCTAssertNil(TransportPair.differences(observations, compareResults: false))
        for observed in observations {
            let name = observed.transport.rawValue
            XCTAssertNotNil(observed.results[0].errorCode, name)
            XCTAssertEqual(observed.results[1].text, "late", name)
            XCTAssertEqual(observed.results[2].text, "late", name)
            XCTAssertEqual(observed.results[1], observations[0].results[1], name)
            XCTAssertEqual(observed.results[2], observations[0].results[2], name)
            XCTAssertGreaterThanOrEqual(observed.durations[0], 0.28, "\(name): the fault waited for the delay")
            XCTAssertGreaterThanOrEqual(observed.durations[1], 0.28, "\(name): the answer waited for the delay")
            XCTAssertGreaterThanOrEqual(observed.durations[2], 0.48, "\(name): the redirect's delay, then the target's")
            XCTAssertEqual(observed.journal.map(\.stubName), ["late-fault", "late", "late-redirect", "late"], name)
        }
    }
}
