import Foundation
import Understudy
import UnderstudyImages
import UnderstudyServer
import UnderstudyTestSupport
import UnderstudyURLProtocol
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `.forward(to:)` through both transports, to a second stub server on loopback playing the
/// real upstream: the answer the client gets, the journal, and what the upstream saw.
final class ConformanceForwardTests: XCTestCase {
    func testForwardedAnswersAreIdenticalOnBothTransports() async throws {
        try requireEncoding(.webp)
        let source = try ImageGenerator.generate(width: 20, height: 12, pattern: .gradient)
        let webp = try source.webPLosslessData()
        let upstreamStubs = StubRegistry()
        upstreamStubs.stub(.path("/photo.webp"), named: "origin-photo",
                           response: .data(webp).headers(["Cache-Control": "max-age=5", "X-Upstream": "yes"]))
        upstreamStubs.stub(.path("/doc.json"), named: "origin-doc") { request in
            .json(["query": .string(request.url.query ?? ""), "method": .string(request.method)]).status(201)
        }
        upstreamStubs.stub(.path("/gone"), named: "origin-gone", response: .text("gone upstream").status(410))
        try await withServer(upstreamStubs) { upstream in
            let observed = try await conform("forward", ignoringHeaders: TransportPair.madeAtRequestTime, { stubs in
                stubs.stub(.path("/photo.webp"), named: "photo", response: .forward(to: upstream.baseURL))
                stubs.stub(.path("/doc.json"), named: "doc", response: .forward(to: upstream.baseURL))
                stubs.stub(.path("/gone"), named: "gone", response: .forward(to: upstream.baseURL))
            }) { client in
                await client.fetch("/photo.webp")
                await client.fetch("/doc.json?q=cat&n=2")
                await client.fetch("/gone")
            }
            let results = observed.results
            XCTAssertEqual(results.map(\.status), [200, 201, 410])
            XCTAssertEqual(results[0].body, webp)
            XCTAssertEqual(results[0].header("Content-Type"), "image/webp")
            XCTAssertEqual(results[0].header("X-Upstream"), "yes")
            XCTAssertEqual(results[0].header("Cache-Control"), "max-age=5")
            XCTAssertEqual(try JSONValue(parsing: results[1].body ?? Data()), ["query": "q=cat&n=2", "method": "GET"])
            XCTAssertEqual(results[2].text, "gone upstream")
            XCTAssertEqual(observed.journal.map(\.stubName), ["photo", "doc", "gone"])
            XCTAssertEqual(observed.journal.map(\.status), [200, 201, 410])
            XCTAssertEqual(upstreamStubs.journal.interactions.map(\.request.path), [
                "/photo.webp", "/doc.json", "/gone", "/photo.webp", "/doc.json", "/gone",
            ], "each transport asked the upstream once per forward")
        }
    }

    /// An upstream that refuses the connection: 502 with the same report on both transports
    /// (not each HTTP client's own error dump).
    func testAForwardToAnUpstreamThatIsDownIs502WithTheSameReport() async throws {
        let dead = try await StubServer.start(serving: StubRegistry())
        let deadBase = dead.baseURL
        try await dead.stop()
        let observed = try await conform("forward to a closed port", { stubs in
            stubs.stub(.path("/nowhere"), named: "nowhere", response: .forward(to: deadBase))
        }) { client in
            await client.fetch("/nowhere")
        }
        XCTAssertEqual(observed.results.first?.status, 502)
        XCTAssertTrue(observed.results.first?.text?.hasPrefix("forward to \(deadBase.absoluteString)/nowhere failed: ") ?? false,
                      "\(String(describing: observed.results.first))")
        XCTAssertEqual(observed.journal.map(\.stubName), ["nowhere"])
        XCTAssertEqual(observed.journal.map(\.status), [502])
    }

    /// Unmatched requests passed upstream: in-process with `unmatched: .passThrough` (the request
    /// goes to its own URL, the upstream's), over the wire with `proxyUnmatched` set to the
    /// upstream. The client must get the upstream's answer alike, and the journal must agree.
    func testUnmatchedRequestsPassedUpstreamAreIdentical() async throws {
        let upstreamStubs = StubRegistry()
        upstreamStubs.stub(.path("/real.json"), named: "real", response: .json(["from": "upstream"]).headers(["X-Upstream": "yes"]))
        upstreamStubs.stub(.path("/teapot"), named: "teapot", response: .text("short and stout").status(418))
        try await withServer(upstreamStubs) { upstream in
            var observations: [TransportPair.Observation] = []
            // One response for both registries: its `Last-Modified` is when it was made, to the
            // second, and two made a moment apart can straddle a second.
            let stubbed = StubResponse.text("stubbed")
            for transport in TransportPair.Transport.allCases {
                let stubs = StubRegistry()
                stubs.stub(.path("/stubbed"), named: "stubbed", response: stubbed)
                let server = try await StubServer.start(serving: stubs, configuration: .init(proxyUnmatched: upstream.baseURL))
                let session = URLSession(configuration: transport == .inProcess ? .stubbed(by: stubs, unmatched: .passThrough) : .ephemeral)
                let client = TransportPair.Client(
                    transport: transport, session: session, base: transport == .inProcess ? upstream.baseURL : server.baseURL, stubs: stubs
                )
                await client.fetch("/real.json?x=1")
                await client.fetch("/teapot")
                await client.fetch("/stubbed")
                session.invalidateAndCancel()
                let journal = await TransportPair.settledJournal(stubs)
                try await server.stop()
                // The final URL differs by design (the upstream's in-process, the server's over the wire).
                let results = client.results.map { result -> TransportPair.ClientResult in
                    guard case .response(_, let status, let headers, let body) = result else { return result }
                    return .response(url: "", status: status, headers: headers, body: body)
                }
                observations.append(TransportPair.Observation(transport: transport, results: results, durations: client.durations, journal: journal))
            }
            if let differences = TransportPair.differences(observations) {
                XCTFail("the transports differ:\n\(differences)")
            }
            let observed = observations[0]
            XCTAssertEqual(observed.results.map(\.status), [200, 418, 200])
            XCTAssertEqual(try JSONValue(parsing: observed.results[0].body ?? Data()), ["from": "upstream"])
            XCTAssertEqual(observed.results[0].header("X-Upstream"), "yes")
            XCTAssertEqual(observed.results[1].text, "short and stout")
            XCTAssertEqual(observed.journal.map(\.stubName), [nil, nil, "stubbed"])
            XCTAssertEqual(observed.journal.map(\.status), [200, 418, 200])
            XCTAssertEqual(upstreamStubs.journal.interactions.map(\.request.path), ["/real.json", "/teapot", "/real.json", "/teapot"])
        }
    }

    /// A forward to an upstream that is not ours: Python's http.server, HTTP/1.0, closing each
    /// connection, with its own Server and Date headers (the Date may tick between the two
    /// transports' fetches, so it alone is not compared).
    func testAForwardToPythonsHTTPServer() async throws {
        let png = try ImageGenerator.generate(width: 8, height: 8, pattern: .checkerboard).pngData()
        let upstream = try LocalUpstream(files: ["cat.png": png, "notes.txt": Data("hello\n".utf8)])
        defer { upstream.stop() }
        let observed = try await conform("forward to http.server", ignoringHeaders: ["date"], { stubs in
            stubs.stub(.any, named: "python", response: .forward(to: upstream.baseURL))
        }) { client in
            await client.fetch("/cat.png")
            await client.fetch("/notes.txt")
            await client.fetch("/missing.txt")
        }
        XCTAssertEqual(observed.results.map(\.status), [200, 200, 404])
        XCTAssertEqual(observed.results[0].body, png)
        XCTAssertEqual(observed.results[0].header("Content-Type"), "image/png")
        XCTAssertEqual(observed.results[1].text, "hello\n")
        XCTAssertTrue(observed.results[0].header("Server")?.hasPrefix("SimpleHTTP/") ?? false, "\(observed.results[0])")
        XCTAssertEqual(observed.journal.map(\.bodyBytesSent), observed.results.map { $0.body?.count ?? -1 })
    }

    func testAForwardedImageTranscodedToPNG() async throws {
        try requireEncoding(.webp)
        let source = try ImageGenerator.generate(width: 20, height: 12, pattern: .gradient)
        let upstreamStubs = StubRegistry()
        upstreamStubs.stub(.path("/photo.webp"), named: "origin", response: .data(try source.webPLosslessData()))
        upstreamStubs.stub(.path("/notes.txt"), named: "notes", response: .text("plain text passes through"))
        try await withServer(upstreamStubs) { upstream in
            let observed = try await conform("forward transcoded", { stubs in
                stubs.stub(.any, named: "as-png", response: .forward(to: upstream.baseURL, transcode: .png))
            }) { client in
                await client.fetch("/photo.webp")
                await client.fetch("/notes.txt")
            }
            let png = try XCTUnwrap(observed.results.first?.body)
            XCTAssertEqual(observed.results.first?.header("Content-Type"), "image/png")
            XCTAssertEqual(observed.results.first?.header("Content-Length"), String(png.count))
            XCTAssertEqual(try RGBAImage(decoding: png), source, "lossless WebP upstream, PNG to the client: same pixels")
            XCTAssertEqual(observed.results.last?.text, "plain text passes through", "a body that is not an image is left as it is")
        }
    }
}
