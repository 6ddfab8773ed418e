import Foundation
import Understudy
import UnderstudyImages
@testable import UnderstudyServer
import XCTest
import UnderstudyTestSupport

/// Headless Chromium pointed at the stub server as its proxy (`--proxy-server`), trusting the
/// server's local CA by its SPKI hash, loading https pages of hosts that exist nowhere: every
/// request goes through an intercepted `CONNECT`, and the page reports what it decoded.
final class ChromiumProxyTests: XCTestCase {
    /// A page that loads `names` as images and then writes, as JSON into `#out`, each one's
    /// decoded size (or `error`) and the protocol each resource came over.
    private static func page(loading names: [String]) -> String {
        let list = names.map { "\"\($0)\"" }.joined(separator: ",")
        return """
            <!doctype html><html><body><pre id="out">pending</pre><script>
            const names = [\(list)];
            const results = {};
            let done = 0;
            function finish() {
              if (++done < names.length) return;
              const protocols = {};
              for (const entry of performance.getEntriesByType('resource')) {
                protocols[new URL(entry.name).pathname] = entry.nextHopProtocol;
              }
              document.getElementById('out').textContent = 'RESULT ' + JSON.stringify({ results, protocols, page: performance.getEntriesByType('navigation')[0].nextHopProtocol });
            }
            for (const name of names) {
              const image = new Image();
              image.onload = () => { results[name] = image.naturalWidth + 'x' + image.naturalHeight; finish(); };
              image.onerror = () => { results[name] = 'error'; finish(); };
              image.src = name;
            }
            </script></body></html>
            """
    }

    private struct Report: Decodable {
        let results: [String: String]
        let protocols: [String: String]
        let page: String
    }

    /// Loads `url` in headless Chromium through `proxy`, trusting the CA whose SPKI hash is
    /// `spki`, and returns what the page reported.
    private func load(_ url: String, proxy: URL, spki: String, directory: URL) throws -> Report {
        let profile = directory.appendingPathComponent("profile-\(UUID().uuidString)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "timeout", "-s", "KILL", "90", "chromium",
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
            "--disable-crash-reporter", "--disable-background-networking", "--disable-component-update",
            "--user-data-dir=\(profile.path)",
            "--proxy-server=\(proxy.absoluteString)", "--ignore-certificate-errors-spki-list=\(spki)",
            "--enable-logging=stderr", "--v=0", "--virtual-time-budget=10000", "--dump-dom", url,
        ]
        let log = directory.appendingPathComponent("chromium-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let out = Pipe()
        process.standardOutput = out
        process.standardError = try FileHandle(forWritingTo: log)
        try process.run()
        let dom = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard let start = dom.range(of: "RESULT "), let end = dom.range(of: "</pre>", range: start.upperBound..<dom.endIndex) else {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            throw ChromiumDriver.Failure(description: "no report in the page: \(dom.prefix(500))\n\(text.suffix(2_000))")
        }
        let json = dom[start.upperBound..<end.lowerBound].replacingOccurrences(of: "&quot;", with: "\"")
        return try JSONDecoder().decode(Report.self, from: Data(json.utf8))
    }

    private func startServer(_ stubs: StubRegistry, directory: URL) async throws -> StubServer {
        var configuration = StubServer.Configuration()
        configuration.intercept = ["*.example.test"]
        return try await StubServer.start(
            serving: stubs, configuration: configuration, tls: .localCA(directory: directory.appendingPathComponent("ca"))
        )
    }

    func testAnHTTPSPageThroughTheProxyDecodesItsWebPPNGAndRedirectedImagesAtTheirSizes() async throws {
        try requireEncoding(.webp)
        let directory = try makeTemporaryDirectory("chromium-proxy")
        let stubs = StubRegistry(transcoder: ImageTranscoder())
        let host = RequestMatcher.host("images.example.test") && .scheme("https")
        stubs.stub(host && .path("/page.html"), named: "page",
                   response: .data(Data(Self.page(loading: ["a.webp", "b.png", "old.png"]).utf8), contentType: "text/html; charset=utf-8"))
        stubs.stub(host && .path("/a.webp"), named: "webp", response: .image(.generated(width: 40, height: 30, pattern: .gradient), as: .webp(quality: 80)))
        stubs.stub(host && .path("/b.png"), named: "png", response: .image(.generated(width: 50, height: 20, pattern: .checkerboard), as: .png))
        stubs.stub(host && .path("/old.png"), named: "moved", response: .redirect(to: "https://cdn.example.test/c.png"))
        stubs.stub(.host("cdn.example.test") && .path("/c.png"), named: "redirected", response: .image(.generated(width: 60, height: 10, pattern: .photo), as: .png))
        let server = try await startServer(stubs, directory: directory)
        defer { Task { try? await server.stop() } }
        let spki = try XCTUnwrap(server.certificateAuthority?.spkiSHA256Base64)

        let report = try load("https://images.example.test/page.html", proxy: server.baseURL, spki: spki, directory: directory)
        XCTAssertEqual(report.results, ["a.webp": "40x30", "b.png": "50x20", "old.png": "60x10"])

        // Every request went through the intercepted tunnel and was answered by its stub.
        let answered = stubs.journal.interactions.map { "\($0.request.url.absoluteString) \($0.stubName ?? "-") \($0.status ?? 0)" }
        for line in [
            "https://images.example.test/page.html page 200", "https://images.example.test/a.webp webp 200",
            "https://images.example.test/b.png png 200", "https://images.example.test/old.png moved 302",
            "https://cdn.example.test/c.png redirected 200",
        ] {
            XCTAssertTrue(answered.contains(line), "\(line) not in \(answered)")
        }
        // Of the page's hosts, nothing went unmatched but the favicon Chromium asks for on its
        // own, which it may ask for after the page's load event or not before it exits (CI saw
        // both): none of the page's own requests.
        let pageHosts = stubs.journal.unmatched.filter { $0.request.url.host?.hasSuffix(".example.test") == true }
        XCTAssertEqual(pageHosts.map(\.request.url.path).filter { $0 != "/favicon.ico" }, [])
    }

    func testThirtyImagesMultiplexedOverHTTP2WhileOneStreamIsReset() async throws {
        let directory = try makeTemporaryDirectory("chromium-proxy-h2")
        let stubs = StubRegistry(transcoder: ImageTranscoder())
        let names = (0..<30).map { "img\($0).png" }
        stubs.stub(.path("/grid.html"), named: "page", response: .data(Data(Self.page(loading: names).utf8), contentType: "text/html; charset=utf-8"))
        for (index, name) in names.enumerated() where index != 17 {
            stubs.stub(.path("/\(name)"), named: name, response: .image(.generated(width: 10 + index, height: 5 + index, pattern: .gradient), as: .png))
        }
        stubs.stub(.path("/img17.png"), named: "img17.png", response: .failure(.connectionReset))
        let server = try await startServer(stubs, directory: directory)
        defer { Task { try? await server.stop() } }
        let spki = try XCTUnwrap(server.certificateAuthority?.spkiSHA256Base64)

        let report = try load("https://grid.example.test/grid.html", proxy: server.baseURL, spki: spki, directory: directory)
        XCTAssertEqual(report.page, "h2")
        for (index, name) in names.enumerated() {
            XCTAssertEqual(report.results[name], index == 17 ? "error" : "\(10 + index)x\(5 + index)", name)
            if index != 17 { XCTAssertEqual(report.protocols["/\(name)"], "h2", name) }
        }

        // Each image was its own HTTP/2 stream, journaled with its own outcome; the reset one
        // as the fault, the others whole.
        let images = stubs.journal.interactions.filter { $0.request.url.path.hasPrefix("/img") }
        XCTAssertEqual(images.filter { $0.stubName == "img17.png" }.map(\.outcome).first, .fault(.connectionReset))
        let whole = images.filter { $0.stubName != "img17.png" }
        XCTAssertEqual(Set(whole.compactMap(\.stubName)).count, 29)
        XCTAssertTrue(whole.allSatisfy { $0.outcome == .completed && $0.httpVersion == .http2 }, "\(whole.map { ($0.outcome, $0.httpVersion) })")
    }
}
