import AsyncHTTPClient
import Foundation
import NIOCore
import Understudy
import UnderstudyServer
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Every wire fault against four independent clients (curl, Python's urllib, URLSession,
/// AsyncHTTPClient) over HTTP/1.1, and two over HTTP/2 with prior knowledge (curl
/// `--http2-prior-knowledge`, Python's httpx with `http2=True`): each must fail, and fail the
/// way the table says. The table is written to
/// `docs/faults.md`; the test fails with a diff when the committed file differs, and
/// `UNDERSTUDY_UPDATE_DOCS=1` rewrites it, so the docs cannot drift from what clients do.
final class ClientFaultTableTests: XCTestCase {
    /// One row: a stubbed response, what it does on the wire, and the stable fact each client
    /// must report (curl exit code, urllib exception, URLError code, AsyncHTTPClient error).
    struct Row {
        let name: String
        let wire: String
        let response: StubResponse
        let clientTimeout: Int
        let curl: String
        let urllib: String
        let urlSession: String
        let asyncHTTPClient: String
        /// What it does on an HTTP/2 stream, and what curl (exit code) and httpx (exception) report.
        let wireH2: String
        let curlH2: String
        let httpxH2: String
        var succeeds: Bool { curl == "0" }
        var succeedsOnHTTP2: Bool { curlH2 == "0" }
    }

    static let rows: [Row] = [
        Row(name: "`connection-reset`", wire: "TCP RST (SO_LINGER 0) before any byte", response: .failure(.connectionReset), clientTimeout: 10,
            curl: "56", urllib: "ConnectionResetError", urlSession: "networkConnectionLost", asyncHTTPClient: "IOError",
            wireH2: "RST_STREAM (INTERNAL_ERROR) before HEADERS", curlH2: "92", httpxH2: "httpx.RemoteProtocolError"),
        Row(name: "`empty-response`", wire: "FIN before any byte", response: .failure(.emptyResponse), clientTimeout: 10,
            curl: "52", urllib: "http.client.RemoteDisconnected", urlSession: "badServerResponse", asyncHTTPClient: "HTTPClientError",
            wireH2: "RST_STREAM (NO_ERROR) before HEADERS", curlH2: "92", httpxH2: "httpx.RemoteProtocolError"),
        Row(name: "`malformed-chunk`", wire: "200 with `Transfer-Encoding: chunked`, an invalid chunk-size line, FIN", response: .failure(.malformedChunk), clientTimeout: 10,
            curl: "56", urllib: "http.client.IncompleteRead", urlSession: "unknown", asyncHTTPClient: "HTTPParserError",
            wireH2: "200 with `content-length: 16`, 43 bytes of DATA, END_STREAM", curlH2: "92", httpxH2: "httpx.LocalProtocolError"),
        Row(name: "`random-data-then-close`", wire: "256 random bytes (the first four 0xFF), FIN", response: .failure(.randomDataThenClose), clientTimeout: 10,
            curl: "1", urllib: "http.client.BadStatusLine", urlSession: "unsupportedURL", asyncHTTPClient: "HTTPParserError",
            wireH2: "256 random bytes (the first four 0xFF) below the framing, FIN", curlH2: "52", httpxH2: "httpx.RemoteProtocolError"),
        Row(name: "`truncateAfter: 1000`", wire: "200, `Content-Length: 10000`, 1,000 body bytes, FIN", response: .data(Data(count: 10_000)).truncated(after: 1_000), clientTimeout: 10,
            curl: "18", urllib: "http.client.IncompleteRead", urlSession: "unknown", asyncHTTPClient: "HTTPParserError",
            wireH2: "200, `content-length: 10000`, 1,000 bytes of DATA, RST_STREAM (INTERNAL_ERROR)", curlH2: "92", httpxH2: "httpx.RemoteProtocolError"),
        Row(name: "`no-response`", wire: "the request is read, nothing is sent; the client's 1 s timeout ends it", response: .failure(.noResponse), clientTimeout: 1,
            curl: "28", urllib: "TimeoutError", urlSession: "timedOut", asyncHTTPClient: "HTTPClientError",
            wireH2: "the stream is held; the client's 1 s timeout ends it", curlH2: "28", httpxH2: "httpx.ReadTimeout"),
        Row(name: "`goaway`", wire: "200 with `Connection: close`, FIN", response: .failure(.goaway), clientTimeout: 10,
            curl: "0", urllib: "ok", urlSession: "ok", asyncHTTPClient: "ok",
            wireH2: "the stream's 200, GOAWAY, FIN once the streams in flight are done", curlH2: "0", httpxH2: "ok"),
        Row(name: "`delay: 200ms`", wire: "the whole response, 200 ms late", response: .data(Data(count: 1_000)).delayed(by: .milliseconds(200)), clientTimeout: 10,
            curl: "0", urllib: "ok", urlSession: "ok", asyncHTTPClient: "ok",
            wireH2: "the same", curlH2: "0", httpxH2: "ok"),
        Row(name: "`bandwidth: 200KB/s`", wire: "20,000 bytes paced over ~0.1 s", response: .data(Data(count: 20_000)).throttled(to: .bytesPerSecond(200_000)), clientTimeout: 10,
            curl: "0", urllib: "ok", urlSession: "ok", asyncHTTPClient: "ok",
            wireH2: "the same", curlH2: "0", httpxH2: "ok"),
    ]

    func testEveryFaultFailsEveryClientAsDocumentedInDocsFaults() async throws {
        let stubs = StubRegistry()
        for (index, row) in Self.rows.enumerated() {
            stubs.stub(.path("/fault/\(index)"), named: "fault-\(index)", response: row.response)
        }
        let python = packageRoot.appendingPathComponent(".venv/bin/python").path
        var observed: [[String]] = [], observedH2: [[String]] = []
        try await withServer(stubs) { server in
            let client = HTTPClient(eventLoopGroupProvider: .singleton)
            do {
                for (index, row) in Self.rows.enumerated() {
                    let url = server.baseURL.absoluteString + "/fault/\(index)"
                    let curlResult = try Self.curlOutcome(url, timeout: row.clientTimeout)
                    let urllibResult = try Self.urllibOutcome(url, timeout: row.clientTimeout, python: python)
                    let sessionResult = await Self.urlSessionOutcome(url, timeout: row.clientTimeout)
                    let ahcResult = await Self.asyncHTTPClientOutcome(url, timeout: row.clientTimeout, client: client)
                    let outcomes = [
                        ("curl", curlResult, row.curl), ("urllib", urllibResult, row.urllib),
                        ("URLSession", sessionResult, row.urlSession), ("AsyncHTTPClient", ahcResult, row.asyncHTTPClient),
                    ]
                    for (client, outcome, expected) in outcomes {
                        XCTAssertEqual(outcome.kind, expected, "\(row.name) with \(client): \(outcome.detail)")
                        if !row.succeeds {
                            XCTAssertFalse(outcome.kind == "ok" || outcome.kind == "0", "\(row.name) with \(client) succeeded")
                        }
                    }
                    observed.append([row.name, row.wire] + outcomes.map(\.1.cell))

                    let curlH2Result = try Self.curlOutcome(url, timeout: row.clientTimeout, http2: true)
                    let httpxResult = try Self.httpxOutcome(url, timeout: row.clientTimeout, python: python)
                    let outcomesH2 = [("curl --http2-prior-knowledge", curlH2Result, row.curlH2), ("httpx (HTTP/2)", httpxResult, row.httpxH2)]
                    for (client, outcome, expected) in outcomesH2 {
                        XCTAssertEqual(outcome.kind, expected, "\(row.name) with \(client): \(outcome.detail)")
                        if !row.succeedsOnHTTP2 {
                            XCTAssertFalse(outcome.kind == "ok" || outcome.kind == "0", "\(row.name) with \(client) succeeded")
                        }
                    }
                    observedH2.append([row.name, row.wireH2] + outcomesH2.map(\.1.cell))
                }
            } catch {
                try await client.shutdown()
                throw error
            }
            try await client.shutdown()
        }
        let markdown = Self.document(observed, http2: observedH2)
        let file = packageRoot.appendingPathComponent("docs/faults.md")
        if ProcessInfo.processInfo.environment["UNDERSTUDY_UPDATE_DOCS"] == "1" {
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try markdown.write(to: file, atomically: true, encoding: .utf8)
            return
        }
        let committed = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
        if committed != markdown {
            XCTFail("docs/faults.md differs from what the clients report (rerun with UNDERSTUDY_UPDATE_DOCS=1 to regenerate):\n" + Self.diff(committed, markdown))
        }
    }

    // MARK: - The clients

    /// What one client reported: `kind` is the stable fact asserted on, `cell` the table text.
    struct Outcome {
        let kind: String
        let detail: String
        var cell: String { kind == detail ? "`\(kind)`" : "`\(kind)`: \(detail)" }
    }

    static func curlOutcome(_ url: String, timeout: Int, http2: Bool = false) throws -> Outcome {
        let result = try curl((http2 ? ["--http2-prior-knowledge"] : []) + ["--output", "/dev/null", url], maxTime: timeout)
        if result.status == 0 { return Outcome(kind: "0", detail: "0") }
        let message = result.stderr.trimmingCharacters(in: .whitespacesAndNewlines)
            .replacingOccurrences(of: #"after \d+ milliseconds"#, with: "after N milliseconds", options: .regularExpression)
            .replacingOccurrences(of: "curl: (\(result.status)) ", with: "")
        return Outcome(kind: String(result.status), detail: message)
    }

    /// urllib's outcome: `ok` or the exception's class and message (a random status line's
    /// bytes are left out, they differ on every run).
    static let urllibScript = #"""
        import http.client, sys, urllib.error, urllib.request
        url, timeout = sys.argv[1], float(sys.argv[2])
        def name(e):
            module = type(e).__module__
            return type(e).__qualname__ if module == "builtins" else module + "." + type(e).__qualname__
        try:
            with urllib.request.urlopen(url, timeout=timeout) as response:
                response.read()
                print("ok")
        except urllib.error.URLError as e:
            print(name(e.reason) + "\t" + name(e) + "(" + name(e.reason) + "): " + str(e.reason))
        except http.client.BadStatusLine as e:
            message = str(e) if isinstance(e, http.client.RemoteDisconnected) else "the status line is not HTTP"
            print(name(e) + "\t" + message)
        except Exception as e:
            print(name(e) + "\t" + str(e))
        """#

    static func urllibOutcome(_ url: String, timeout: Int, python: String) throws -> Outcome {
        let result = try UnderstudyServerTests.run("timeout", ["-s", "KILL", String(timeout + 10), python, "-c", urllibScript, url, String(timeout)])
        let line = result.text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard result.status == 0, !line.isEmpty else {
            return Outcome(kind: "python failed (\(result.status))", detail: result.stderr)
        }
        let parts = line.split(separator: "\t", maxSplits: 1).map(String.init)
        return Outcome(kind: parts[0], detail: parts.count > 1 ? parts[1] : parts[0])
    }

    /// httpx's outcome over HTTP/2 with prior knowledge: `ok` or the exception's class and
    /// message (digits of a frame length read from random bytes are left out).
    static let httpxScript = #"""
        import re, sys, httpx
        url, timeout = sys.argv[1], float(sys.argv[2])
        def name(e):
            module = type(e).__module__
            return type(e).__qualname__ if module == "builtins" else module + "." + type(e).__qualname__
        try:
            with httpx.Client(http1=False, http2=True, timeout=timeout) as client:
                client.get(url).read()
                print("ok")
        except Exception as e:
            print(name(e) + "\t" + re.sub(r"\d{5,}", "N", str(e)).replace("\n", " "))
        """#

    static func httpxOutcome(_ url: String, timeout: Int, python: String) throws -> Outcome {
        let result = try UnderstudyServerTests.run("timeout", ["-s", "KILL", String(timeout + 10), python, "-c", httpxScript, url, String(timeout)])
        let line = result.text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard result.status == 0, !line.isEmpty else {
            return Outcome(kind: "python failed (\(result.status))", detail: result.stderr)
        }
        let parts = line.split(separator: "\t", maxSplits: 1).map(String.init)
        return Outcome(kind: parts[0], detail: parts.count > 1 ? parts[1] : parts[0])
    }

    static func urlSessionOutcome(_ url: String, timeout: Int) async -> Outcome {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = TimeInterval(timeout)
        let session = URLSession(configuration: configuration)
        defer { session.invalidateAndCancel() }
        do {
            _ = try await session.data(from: URL(string: url)!)
            return Outcome(kind: "ok", detail: "ok")
        } catch let error as URLError {
            let name = codeName(error.code)
            return Outcome(kind: name, detail: name)
        } catch {
            return Outcome(kind: "\(type(of: error))", detail: "\(error)")
        }
    }

    static func asyncHTTPClientOutcome(_ url: String, timeout: Int, client: HTTPClient) async -> Outcome {
        do {
            let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(Int64(timeout)))
            _ = try await response.body.collect(upTo: 1 << 20)
            return Outcome(kind: "ok", detail: "ok")
        } catch {
            let kind = "\(type(of: error))"
            var detail = "\(error)"
            if let io = error as? IOError {
                detail = "errno \(io.errnoCode) (\(String(cString: strerror(io.errnoCode))))"
            }
            return Outcome(kind: kind, detail: detail)
        }
    }

    static func codeName(_ code: URLError.Code) -> String {
        let names: [URLError.Code: String] = [
            .networkConnectionLost: "networkConnectionLost", .badServerResponse: "badServerResponse",
            .cannotParseResponse: "cannotParseResponse", .unknown: "unknown", .unsupportedURL: "unsupportedURL",
            .timedOut: "timedOut", .cannotConnectToHost: "cannotConnectToHost", .zeroByteResource: "zeroByteResource",
        ]
        return names[code] ?? "code \(code.rawValue)"
    }

    // MARK: - The document

    static func document(_ rows: [[String]], http2: [[String]]) -> String {
        var text = """
            # Faults, as independent clients see them

            Generated by `ClientFaultTableTests` (Tests/UnderstudyServerTests/ClientFaultTableTests.swift)
            against a live `StubServer` on loopback; do not edit by hand. After a change in behaviour,
            regenerate with `UNDERSTUDY_UPDATE_DOCS=1 swift test --filter ClientFaultTableTests`.

            Each cell starts with the stable fact the test asserts: curl's exit code, the class of the
            exception Python's `urllib.request.urlopen` (or the response's `read()`) raised, the
            `URLError.Code` of swift-corelibs-foundation's URLSession (libcurl underneath, so vaguer
            than Apple's), and the Swift type of AsyncHTTPClient's error; then what the client said.
            Every fault fails every client but `goaway`, which ends the connection gracefully after
            its answer; `delay` and `bandwidth` are there for completeness and succeed. In-process
            (`URLSession(configuration: .stubbed(by:))`) faults fail with the codes in the fault
            table of the "Faults and networks" article (Sources/Understudy/Understudy.docc) instead.


            """
        text += "| fault | on the wire | curl | Python urllib | URLSession (Linux) | AsyncHTTPClient |\n"
        text += "| --- | --- | --- | --- | --- | --- |\n"
        text += table(rows)
        text += """

            ## Over HTTP/2

            The same stubs over HTTP/2 with prior knowledge (h2c) on the plain port, where a fault
            acts on its own stream (SPEC section 10): curl `--http2-prior-knowledge` (its exit
            code) and Python's httpx with `http1=False, http2=True` (the class of its exception).
            AsyncHTTPClient is not in this table: it speaks HTTP/2 only after ALPN over TLS, never
            with prior knowledge, and URLSession on Linux (libcurl) does not offer h2c either.


            """
        text += "| fault | on the wire (HTTP/2) | curl --http2-prior-knowledge | Python httpx (HTTP/2) |\n"
        text += "| --- | --- | --- | --- |\n"
        text += table(http2)
        return text
    }

    private static func table(_ rows: [[String]]) -> String {
        rows.map { row in
            "| " + row.map { $0.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " ") }.joined(separator: " | ") + " |\n"
        }.joined()
    }

    /// The lines only in one of the two texts, marked `-` (committed) and `+` (generated).
    static func diff(_ old: String, _ new: String) -> String {
        let oldLines = old.components(separatedBy: "\n"), newLines = new.components(separatedBy: "\n")
        let removed = oldLines.filter { !newLines.contains($0) }.map { "- " + $0 }
        let added = newLines.filter { !oldLines.contains($0) }.map { "+ " + $0 }
        return (removed + added).joined(separator: "\n")
    }

    /// The package's root directory, found from this file's path.
    var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }
}
