import Foundation
import XCTest

/// WireMock's own Python client (PyPI `wiremock`, installed into `.venv` by `make test-deps`)
/// against a real `understudy serve --root-dir`: every call of its `Mappings`, `Requests`,
/// `NearMisses`, `Scenarios` and `GlobalSettings` resources, each followed by real requests
/// that show its effect, and a Testcontainers-style start.
final class WireMockPythonClientTests: XCTestCase {
    private var root: URL!
    private var server: StartedUnderstudy?

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("wiremock-client-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("__files/images"), withIntermediateDirectories: true)
        try Self.png(width: 2, height: 2, red: 255).write(to: root.appendingPathComponent("__files/images/cat.png"))
        try Self.png(width: 3, height: 1, red: 0).write(to: root.appendingPathComponent("__files/images/dog.png"))
    }

    override func tearDownWithError() throws {
        if let process = server?.process, process.isRunning {
            XCTAssertTrue(terminate(process), "still running 10 s after SIGTERM")
        }
        try? FileManager.default.removeItem(at: root)
    }

    func testEveryCallOfTheClientAndItsEffect() throws {
        let server = try startUnderstudy(["serve", "--root-dir", root.path, "--port", "0", "--log", "quiet"])
        self.server = server
        let output = try runPythonScript(Self.clientScript, arguments: ["http://127.0.0.1:\(server.port)", root.path])
        XCTAssertEqual(output.status, 0, output.stderr)
        XCTAssertEqual(output.stdout.split(separator: "\n").map(String.init), [
            "create_mapping: 201-style mapping with id True",
            "cat: 200 image/png (2, 2) (255, 0, 0)",
            "dog: 200 image/png (3, 1) (0, 0, 255)",
            "retrieve_all_mappings: 1",
            "retrieve_mapping: /photos/[a-z]+",
            "scenario: one two two",
            "journal: [('Started', 's', 'two'), ('two', 's', 'two'), ('two', 's', 'two')]",
            "scenarios: s two ['Started', 'two']",
            "reset_all_scenarios: one",
            "get_all_received_requests: total 6, newest /step /step",
            "get_request: /step 200 True",
            "get_matching_request_count: 4",
            "get_matching_requests: ['/photos/cat', '/photos/dog']",
            "get_unmatched_requests: ['/nothing-here']",
            "get_unmatched_requests_near_misses: ['/step', '/step', '/photos/[a-z]+']",
            "find_nearest_misses_by_request: ['/step', '/step']",
            "find_nearest_misses_by_request_pattern: ['/nothing-here']",
            "update_global_settings: delayed True",
            "settings: {'fixedDelay': 150}",
            "update_mapping: 201",
            "persist_mappings: 1 file(s)",
            "delete_mapping: 404",
            "reset_mappings: 201",
            "reset_request_journal: 0",
            "delete_all_mappings: 0 404",
            "delete_mapping_by_metadata: found 2, then 404 200",
            "bad mapping: 400 /request/urlPathPatern",
        ])
    }

    func testATestcontainersStyleStart() throws {
        // The container's root is empty at start; files are copied in once it answers.
        let server = try startUnderstudy(["serve", "--root-dir", root.path, "--port", "0", "--log", "quiet"])
        self.server = server
        let staged = FileManager.default.temporaryDirectory.appendingPathComponent("staged-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: staged) }
        try FileManager.default.createDirectory(at: staged, withIntermediateDirectories: true)
        try #"{"request": {"method": "GET", "urlPath": "/hello"}, "response": {"status": 200, "body": "hi {{request.query.name}}", "transformers": ["response-template"]}}"#
            .write(to: staged.appendingPathComponent("hello.json"), atomically: true, encoding: .utf8)
        let output = try runPythonScript(Self.containerScript, arguments: ["http://127.0.0.1:\(server.port)", root.path, staged.path])
        XCTAssertEqual(output.status, 0, output.stderr)
        XCTAssertEqual(output.stdout.split(separator: "\n").map(String.init), [
            "ready: 200",
            "before reset: 404",
            "reset: 200",
            "after reset: 200 hi ann",
        ])
    }

    // MARK: - Scripts

    static let clientScript = #"""
import os, sys, time, io, requests
from PIL import Image
from wiremock.constants import Config
from wiremock.client import *
from wiremock.exceptions import ApiException
base, root = sys.argv[1], sys.argv[2]
Config.base_url = base + "/__admin"

def image(path):
    r = requests.get(base + path)
    picture = Image.open(io.BytesIO(r.content)).convert("RGB")
    return "%d %s %s %s" % (r.status_code, r.headers.get("Content-Type"), picture.size, picture.getpixel((0, 0)))

m = Mappings.create_mapping(Mapping(
    request=MappingRequest(method=HttpMethods.GET, url_path_pattern="/photos/[a-z]+"),
    response=MappingResponse(status=200, body_file_name="images/{{request.pathSegments.[1]}}.png",
                             headers={"Content-Type": "image/png"}, transformers=["response-template"])))
print("create_mapping: 201-style mapping with id", len(m.id) == 36)
print("cat:", image("/photos/cat"))
print("dog:", image("/photos/dog"))
print("retrieve_all_mappings:", Mappings.retrieve_all_mappings().meta.total)
print("retrieve_mapping:", Mappings.retrieve_mapping(m.id).request.url_path_pattern)

Mappings.create_mapping(Mapping(scenario_name="s", required_scenario_state="Started", new_scenario_state="two",
    request=MappingRequest(method="GET", url="/step"), response=MappingResponse(body="one")))
Mappings.create_mapping(Mapping(scenario_name="s", required_scenario_state="two",
    request=MappingRequest(method="GET", url="/step"), response=MappingResponse(body="two")))
print("scenario:", requests.get(base + "/step").text, requests.get(base + "/step").text, requests.get(base + "/step").text)
entries = requests.get(base + "/__admin/requests?limit=3").json()["requests"]
print("journal:", [(e["stubMapping"]["requiredScenarioState"], e["request"]["understudy"]["scenario"]["name"], e["request"]["understudy"]["scenario"]["state"]) for e in reversed(entries)])
s = requests.get(base + "/__admin/scenarios").json()["scenarios"][0]
print("scenarios:", s["name"], s["state"], s["possibleStates"])
Scenarios.reset_all_scenarios()
print("reset_all_scenarios:", requests.get(base + "/step").text)

all_requests = Requests.get_all_received_requests(limit=2)
print("get_all_received_requests: total %d, newest %s" % (all_requests.meta.total, " ".join(r.request.url for r in all_requests.requests)))
one = Requests.get_request(all_requests.requests[0].id)
print("get_request:", one.request.url, one.response_definition.status, one.request.absolute_url.startswith(base))
print("get_matching_request_count:", Requests.get_matching_request_count(NearMissMatchPatternRequest(url="/step", method="GET")).count)
found = Requests.get_matching_requests(NearMissMatchPatternRequest(url_path_pattern="/photos/.*", method="GET")).requests
print("get_matching_requests:", [r.url for r in found])
requests.get(base + "/nothing-here")
print("get_unmatched_requests:", [r.url for r in Requests.get_unmatched_requests().requests])

def pattern_of(miss):
    request = Mappings.retrieve_mapping(miss["stubMapping"]["id"]).request
    return request.url or request.url_path_pattern

raw = requests.get(base + "/__admin/requests/unmatched/near-misses").json()["nearMisses"]
print("get_unmatched_requests_near_misses:", [pattern_of(n) for n in raw])
assert len(Requests.get_unmatched_requests_near_misses().near_misses) == 3
by_request = NearMisses.find_nearest_misses_by_request(NearMissMatchRequest(url="/stepp", method="GET")).near_misses
raw = requests.post(base + "/__admin/near-misses/request", json={"url": "/stepp", "method": "GET"}).json()["nearMisses"]
print("find_nearest_misses_by_request:", [pattern_of(n) for n in raw][:2])
by_pattern = NearMisses.find_nearest_misses_by_request_pattern(NearMissMatchPatternRequest(url="/nothing-her", method="GET")).near_misses
print("find_nearest_misses_by_request_pattern:", [n.request.url for n in by_pattern][:1])

GlobalSettings.update_global_settings(GlobalSetting(fixed_delay=150))
start = time.time(); requests.get(base + "/step")
print("update_global_settings: delayed", time.time() - start >= 0.15)
print("settings:", requests.get(base + "/__admin/settings").json()["settings"])
GlobalSettings.update_global_settings(GlobalSetting(fixed_delay=0))

m.response.status = 201
Mappings.update_mapping(m)
print("update_mapping:", requests.get(base + "/photos/cat").status_code)
Mappings.persist_mappings()
saved = [name for name in os.listdir(os.path.join(root, "mappings")) if m.id in name]
print("persist_mappings: %d file(s)" % len(saved))
Mappings.delete_mapping(m.id)
print("delete_mapping:", requests.get(base + "/photos/cat").status_code)
Mappings.reset_mappings()
print("reset_mappings:", requests.get(base + "/photos/cat").status_code)
Requests.reset_request_journal()
print("reset_request_journal:", Requests.get_all_received_requests().meta.total)
Mappings.delete_all_mappings()
print("delete_all_mappings:", Mappings.retrieve_all_mappings().meta.total, requests.get(base + "/photos/cat").status_code)
requests.post(base + "/__admin/mappings", json={"metadata": {"tag": "tmp"}, "request": {"url": "/tagged"}, "response": {"body": "t"}})
requests.post(base + "/__admin/mappings", json={"metadata": {"tag": "keep"}, "request": {"url": "/kept"}, "response": {"body": "k"}})
found = requests.post(base + "/__admin/mappings/find-by-metadata", json={"matchesJsonPath": "$.tag"}).json()["meta"]["total"]
Mappings.delete_mapping_by_metadata({"matchesJsonPath": {"expression": "$.tag", "equalTo": "tmp"}})
print("delete_mapping_by_metadata: found %d, then" % found, requests.get(base + "/tagged").status_code, requests.get(base + "/kept").status_code)
try:
    Mappings.create_mapping(Mapping(request=MappingRequest(method="GET", url_path_pattern="/x"), response=MappingResponse(status=200)))
    bad = requests.post(base + "/__admin/mappings", json={"request": {"urlPathPatern": "/x"}, "response": {"status": 200}})
    print("bad mapping:", bad.status_code, bad.json()["errors"][0]["source"]["pointer"])
except ApiException as error:
    print("bad mapping: raised", error)
"""#

    static let containerScript = #"""
import shutil, sys, time, requests
base, root, staged = sys.argv[1], sys.argv[2], sys.argv[3]
for attempt in range(100):
    try:
        ready = requests.get(base + "/__admin/mappings", timeout=1)
        if ready.status_code == 200:
            break
    except requests.ConnectionError:
        pass
    time.sleep(0.1)
print("ready:", ready.status_code)
shutil.copy(staged + "/hello.json", root + "/mappings/hello.json")
print("before reset:", requests.get(base + "/hello?name=ann").status_code)
print("reset:", requests.post(base + "/__admin/mappings/reset").status_code)
after = requests.get(base + "/hello?name=ann")
print("after reset:", after.status_code, after.text)
"""#

    // MARK: - Helpers

    /// A PNG of one colour: `red` in the red channel, 255 - `red` in the blue.
    static func png(width: Int, height: Int, red: UInt8) throws -> Data {
        let python = """
        import io, sys
        from PIL import Image
        buffer = io.BytesIO()
        Image.new("RGB", (\(width), \(height)), (\(red), 0, \(255 - Int(red)))).save(buffer, "PNG")
        sys.stdout.buffer.write(buffer.getvalue())
        """
        let process = Process()
        process.executableURL = packageRoot.appendingPathComponent(".venv/bin/python")
        process.arguments = ["-c", python]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return data
    }
}
