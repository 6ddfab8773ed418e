import Foundation
import XCTest

/// WireMock's own Java client, from the 2.35.1 standalone jar the PyPI package ships, run by
/// Java's source launcher against `understudy serve --root-dir`: each call followed by a real
/// request showing its effect. Its JSON reading is strict (a field it does not know in a serve
/// event, a response or a mapping fails the call), so this is what holds the admin API's shapes
/// to WireMock's.
final class WireMockJavaClientTests: XCTestCase {
    func testEveryCallOfTheJavaClientAndItsEffect() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/java") || ProcessInfo.processInfo.environment["PATH"]?.split(separator: ":")
            .contains(where: { FileManager.default.isExecutableFile(atPath: "\($0)/java") }) == true
        else { throw XCTSkip("no java: run `make test-deps`") }
        let jar = try Self.jar()
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("wiremock-java-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let source = root.appendingPathComponent("Client.java")
        try Self.client.write(to: source, atomically: true, encoding: .utf8)
        let server = try startUnderstudy(["serve", "--root-dir", root.appendingPathComponent("wiremock").path, "--port", "0", "--log", "quiet"])
        defer {
            XCTAssertTrue(terminate(server.process), "still running 10 s after SIGTERM")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["java", "-cp", jar.path, source.path, server.port]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, stderr)
        XCTAssertEqual(stdout.split(separator: "\n").map(String.init), [
            "a stub-file stub: 200 from a stub file",
            "stubFor: 200 hi",
            "listAllStubMappings: 2 file-stub",
            "getSingleStubMapping: /hello",
            "editStub: 200 edited",
            "verify: ok",
            "findAll: 2",
            "getAllServeEvents: 3 /hello",
            "findUnmatchedRequests: 1",
            "findNearMissesForAllUnmatched: 2",
            "scenario: 200 one / 200 two",
            "getAllScenarios: two",
            "resetAllScenarios: 200 one",
            "setScenarioState: 200 two",
            "setGlobalFixedDelay: true",
            "resetAllRequests: 0",
            "removeStub: 404",
            "resetToDefault: 200 one",
            "reset: 2",
            "findStubsByMetadata: 1",
            "removeStubsByMetadata: 404 200 k",
            "importStubs: 200 imported",
            "findNearMissesFor(request): /imported",
            "findNearMissesFor(pattern): /imported",
            "getSettings: 5",
            "removeAllMappings: 0 404",
            #"unsupported: InvalidInputException: "detail" : "request body:6: request.multipartPatterns: unsupported field; supported: method, url, urlPath, urlPattern, urlPathPattern, urlPathTemplate, pathParameters, scheme, host, port, headers, queryParameters, cookies, basicAuthCredentials, bodyPatterns""#,
        ])
    }

    /// WireMock's standalone jar from the PyPI package `wiremock` in `.venv` (`make test-deps`).
    static func jar() throws -> URL {
        let lib = packageRoot.appendingPathComponent(".venv/lib")
        for python in ((try? FileManager.default.contentsOfDirectory(atPath: lib.path)) ?? []).sorted() {
            let jar = lib.appendingPathComponent("\(python)/site-packages/wiremock/server/wiremock-standalone-2.35.1.jar")
            if FileManager.default.fileExists(atPath: jar.path) { return jar }
        }
        throw XCTSkip("no wiremock-standalone-2.35.1.jar under \(lib.path): run `make test-deps`")
    }

    static let client = #"""
import static com.github.tomakehurst.wiremock.client.WireMock.*;
import com.github.tomakehurst.wiremock.client.WireMock;
import com.github.tomakehurst.wiremock.stubbing.StubMapping;
import java.net.URI;
import java.net.http.*;

public class Client {
    // java.net.http as it comes: it asks to upgrade every http:// connection to h2c, and the
    // server answers over HTTP/1.1 and goes on serving the connection.
    static HttpClient http = HttpClient.newHttpClient();
    static String base;
    static String fetch(String path) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + path)).build(), HttpResponse.BodyHandlers.ofString());
        return r.statusCode() + " " + r.body();
    }
    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        base = "http://127.0.0.1:" + port;
        WireMock.configureFor("127.0.0.1", port);
        http.send(HttpRequest.newBuilder(URI.create(base + "/__admin/stubs")).POST(HttpRequest.BodyPublishers.ofString("{\"name\": \"file-stub\", \"request\": {\"path\": \"/file-stub\"}, \"response\": {\"body\": \"from a stub file\"}}")).build(), HttpResponse.BodyHandlers.ofString());
        System.out.println("a stub-file stub: " + fetch("/file-stub"));
        StubMapping hello = stubFor(get(urlEqualTo("/hello")).willReturn(ok("hi")));
        System.out.println("stubFor: " + fetch("/hello"));
        System.out.println("listAllStubMappings: " + listAllStubMappings().getMappings().size() + " " + listAllStubMappings().getMappings().get(1).getName());
        System.out.println("getSingleStubMapping: " + getSingleStubMapping(hello.getId()).getRequest().getUrl());
        editStub(get(urlEqualTo("/hello")).withId(hello.getId()).willReturn(ok("edited")));
        System.out.println("editStub: " + fetch("/hello"));
        verify(2, getRequestedFor(urlEqualTo("/hello")));
        System.out.println("verify: ok");
        System.out.println("findAll: " + findAll(getRequestedFor(urlEqualTo("/hello"))).size());
        System.out.println("getAllServeEvents: " + getAllServeEvents().size() + " " + getAllServeEvents().get(0).getRequest().getUrl());
        fetch("/nothing-here");
        System.out.println("findUnmatchedRequests: " + findUnmatchedRequests().size());
        System.out.println("findNearMissesForAllUnmatched: " + findNearMissesForAllUnmatched().size());
        stubFor(get(urlEqualTo("/step")).inScenario("walk").whenScenarioStateIs("Started").willSetStateTo("two").willReturn(ok("one")));
        stubFor(get(urlEqualTo("/step")).inScenario("walk").whenScenarioStateIs("two").willReturn(ok("two")));
        System.out.println("scenario: " + fetch("/step") + " / " + fetch("/step"));
        System.out.println("getAllScenarios: " + getAllScenarios().get(0).getState());
        resetAllScenarios();
        System.out.println("resetAllScenarios: " + fetch("/step"));
        setScenarioState("walk", "two");
        System.out.println("setScenarioState: " + fetch("/step"));
        setGlobalFixedDelay(100);
        long start = System.nanoTime();
        fetch("/hello");
        System.out.println("setGlobalFixedDelay: " + ((System.nanoTime() - start) / 1_000_000 >= 100));
        setGlobalFixedDelay(0);
        resetAllRequests();
        System.out.println("resetAllRequests: " + getAllServeEvents().size());
        removeStub(hello);
        System.out.println("removeStub: " + fetch("/hello").substring(0, 3));
        saveAllMappings();
        resetToDefault();
        System.out.println("resetToDefault: " + fetch("/step"));
        WireMock.reset();
        System.out.println("reset: " + listAllStubMappings().getMappings().size());
        stubFor(get(urlEqualTo("/tagged")).withMetadata(com.github.tomakehurst.wiremock.common.Metadata.metadata().attr("tag", "tmp")).willReturn(ok("t")));
        stubFor(get(urlEqualTo("/kept")).withMetadata(com.github.tomakehurst.wiremock.common.Metadata.metadata().attr("tag", "keep")).willReturn(ok("k")));
        System.out.println("findStubsByMetadata: " + findStubsByMetadata(matchingJsonPath("$.tag", equalTo("tmp"))).size());
        removeStubsByMetadata(matchingJsonPath("$.tag", equalTo("tmp")));
        System.out.println("removeStubsByMetadata: " + fetch("/tagged").substring(0, 3) + " " + fetch("/kept"));
        importStubs(com.github.tomakehurst.wiremock.stubbing.StubImport.stubImport()
            .stub(get(urlEqualTo("/imported")).willReturn(ok("imported"))).build());
        System.out.println("importStubs: " + fetch("/imported"));
        fetch("/importe");
        var unmatched = findUnmatchedRequests().get(0);
        System.out.println("findNearMissesFor(request): " + findNearMissesFor(unmatched).get(0).getStubMapping().getRequest().getUrl());
        System.out.println("findNearMissesFor(pattern): " + findNearMissesFor(getRequestedFor(urlEqualTo("/importedd"))).get(0).getRequest().getUrl());
        setGlobalFixedDelay(5);
        System.out.println("getSettings: " + getSettings().getFixedDelay());
        setGlobalFixedDelay(0);
        removeAllMappings();
        System.out.println("removeAllMappings: " + listAllStubMappings().getMappings().size() + " " + fetch("/kept").substring(0, 3));
        try {
            stubFor(post(urlEqualTo("/multipart")).withMultipartRequestBody(aMultipart().withName("info")).willReturn(ok()));
            System.out.println("unsupported: accepted");
        } catch (Exception error) {
            System.out.println("unsupported: " + error.getClass().getSimpleName() + ": " + error.getMessage().lines().filter(l -> l.contains("detail")).findFirst().orElse(error.getMessage()).trim());
        }
    }
}
"""#
}
