import Foundation
import Understudy
import UnderstudyServer
import XCTest

/// The admin API over HTTP/2 answers as over HTTP/1.1 (one code path), streamed answers
/// included: `GET /__admin/events` sends its server-sent events on an h2 stream, and the
/// dashboard over HTTPS, where ALPN picks h2, updates live in Chromium.
final class AdminHTTP2Tests: XCTestCase {
    private func stubs() throws -> StubRegistry {
        let stubs = StubRegistry()
        stubs.stub(.path("/cat.png"), named: "cat", response: .image(.generated(width: 23, height: 11, pattern: .gradient), as: .png))
        return stubs
    }

    /// httpx over h2c reads the event stream: the first event at once, a second after a request
    /// made meanwhile on another connection, with the journal's version gone up.
    func testServerSentEventsOverHTTP2WithHttpx() async throws {
        let python = packageRoot.appendingPathComponent(".venv/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: python) else {
            return XCTFail("no \(python): run `make test-deps`, which installs httpx[http2] into .venv")
        }
        let script = #"""
            import sys, httpx
            base = sys.argv[1]
            with httpx.Client(http1=False, http2=True, timeout=10) as client, httpx.Client(http1=False, http2=True) as other:
                with client.stream("GET", base + "/__admin/events") as response:
                    print(response.http_version, response.status_code, response.headers.get("content-type"), "content-length" in response.headers)
                    versions = []
                    for line in response.iter_lines():
                        if line.startswith("event: "):
                            print(line)
                        if line.startswith("data: "):
                            versions.append(int(line[6:]))
                            if len(versions) == 1:
                                r = other.get(base + "/cat.png")
                                print("request", r.http_version, r.status_code)
                            else:
                                print("journal version went up:", versions[1] > versions[0])
                                break
            """#
        let stubs = try stubs()
        try await withServer(stubs) { server in
            let result = try UnderstudyServerTests.run("timeout", ["-s", "KILL", "30", python, "-c", script, server.baseURL.absoluteString])
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertEqual(result.text.split(separator: "\n").map(String.init), [
                "HTTP/2 200 text/event-stream False",
                "event: journal",
                "request HTTP/2 200",
                "event: journal",
                "journal version went up: True",
            ], result.stderr)
        }
        XCTAssertEqual(stubs.journal.interactions.map(\.request.url.path), ["/cat.png"], "admin requests are not journaled")
    }

    /// The dashboard over HTTPS: Chromium (trusting the local CA by its key) gets the page over
    /// h2, and the page shows a request made after it loaded without being reloaded.
    func testTheDashboardOverHTTPSWithHTTP2UpdatesLiveInChromium() async throws {
        let directory = try makeTemporaryDirectory("admin-h2-chromium")
        let stubs = try stubs()
        let server = try await StubServer.start(serving: stubs, tls: .localCA(directory: directory.appendingPathComponent("ca")))
        do {
            let spki = try XCTUnwrap(server.certificateAuthority?.spkiSHA256Base64)
            let base = try XCTUnwrap(server.httpsURL).absoluteString
            let caFile = directory.appendingPathComponent("ca.pem")
            try Data(XCTUnwrap(server.certificateAuthority?.pem).utf8).write(to: caFile)
            func get(_ path: String) throws -> String {
                try curl(["--cacert", caFile.path, "-o", "/dev/null", "-w", "%{http_code} %{http_version}", base + path]).text
            }
            XCTAssertEqual(try get("/cat.png"), "200 2")

            let driver = try ChromiumDriver(directory: directory, arguments: ["--ignore-certificate-errors-spki-list=\(spki)"])
            defer { driver.quit() }
            try driver.navigate(URL(string: "\(base)/__admin/")!)
            try driver.wait(until: """
                document.body.dataset.stream === "open" && document.querySelectorAll("#journal tr.entry").length === 1
                """)
            XCTAssertEqual(try driver.evaluate(#"performance.getEntriesByType("navigation")[0].nextHopProtocol"#) as? String, "h2")
            _ = try driver.evaluate("window.understudyTestMark = 'same page'")

            XCTAssertEqual(try get("/cat.png?again=1"), "200 2")
            try driver.wait(until: """
                document.querySelectorAll("#journal tr.entry").length === 2
                  && document.querySelector("#journal tbody tr.entry").dataset.url.endsWith("/cat.png?again=1")
                  && document.querySelector("#journal tbody tr.entry img.thumb").dataset.naturalWidth === "23"
                """)
            XCTAssertEqual(try driver.evaluate("window.understudyTestMark") as? String, "same page", "the page was not reloaded")
            XCTAssertEqual(try driver.evaluate(#"document.body.dataset.stream"#) as? String, "open")
            // The event stream itself came over h2.
            let protocols = try XCTUnwrap(driver.evaluate("""
                Array.from(new Set(performance.getEntriesByType("resource").filter((entry) => entry.name.includes("/__admin/")).map((entry) => entry.nextHopProtocol)))
                """) as? [String])
            XCTAssertEqual(protocols, ["h2"])
        } catch {
            try await server.stop()
            throw error
        }
        try await server.stop()
        XCTAssertEqual(stubs.journal.interactions.map(\.httpVersion), [.http2, .http2])
    }

    private var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }
}
