import Foundation
import XCTest

/// `DELETE /__admin/requests/{id}` and `POST /__admin/requests/remove` against WireMock 2.35.1
/// and `understudy serve`: the same script (WireMock's Python client for the journal, `requests`
/// for the calls the client lacks) prints the same lines on both.
final class WireMockJournalRemovalClientTests: XCTestCase {
    static let root = LockedServers.temporaryRoot("wiremock-journal")

    private static let servers = LockedServers(root: root)

    override class func tearDown() {
        servers.stop(removing: root)
        super.tearDown()
    }

    func testRemovingOneEntryAndThoseMatchingAPattern() throws {
        let ports = try Self.servers.ports()
        let expected = [
            "journal: ['/j/c', '/j/b', '/j/b', '/j/a']",
            "delete: 200 {}",
            "get deleted: 404",
            "remove: 200 ['/j/b', '/j/b']",
            "left: ['/j/a']",
            "count: 1",
            "delete again: 200",
        ]
        for (server, port) in [("wiremock", ports.wireMock), ("understudy", ports.understudy)] {
            let output = try runPythonScript(Self.script, arguments: ["http://127.0.0.1:\(port)"])
            XCTAssertEqual(output.status, 0, "\(server): \(output.stderr)")
            XCTAssertEqual(output.stdout.split(separator: "\n").map(String.init), expected, server)
        }
    }

    static let script = #"""
import sys, requests
from wiremock.constants import Config
from wiremock.client import *
base = sys.argv[1]
Config.base_url = base + "/__admin"

Requests.reset_request_journal()
Mappings.create_mapping(Mapping(request=MappingRequest(method=HttpMethods.GET, url="/j/a"), response=MappingResponse(status=200, body="a")))
for path in ["/j/a", "/j/b", "/j/b", "/j/c"]:
    requests.get(base + path)
events = Requests.get_all_received_requests().requests
print("journal:", [e.request.url for e in events])
target = events[0].id
deleted = requests.delete(base + "/__admin/requests/" + target)
print("delete:", deleted.status_code, deleted.json())
print("get deleted:", requests.get(base + "/__admin/requests/" + target).status_code)
removed = requests.post(base + "/__admin/requests/remove", json={"method": "GET", "urlPath": "/j/b"})
print("remove:", removed.status_code, sorted(e["request"]["url"] for e in removed.json()["serveEvents"]))
print("left:", [e.request.url for e in Requests.get_all_received_requests().requests])
print("count:", Requests.get_matching_request_count(NearMissMatchPatternRequest(url_path_pattern="/j/.*", method="GET")).count)
print("delete again:", requests.delete(base + "/__admin/requests/" + target).status_code)
"""#
}

/// Runs `script` with the `.venv`'s Python (`make test-deps`), skipping the test without it.
func runPythonScript(_ script: String, arguments: [String]) throws -> UnderstudyRun {
    let python = packageRoot.appendingPathComponent(".venv/bin/python")
    guard FileManager.default.isExecutableFile(atPath: python.path) else {
        throw XCTSkip("no .venv/bin/python: run `make test-deps`")
    }
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("client-\(UUID().uuidString).py")
    try script.write(to: file, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: file) }
    let process = Process()
    process.executableURL = python
    process.arguments = [file.path] + arguments
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    let stderr = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return UnderstudyRun(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self), stderr: String(decoding: stderr, as: UTF8.self))
}
