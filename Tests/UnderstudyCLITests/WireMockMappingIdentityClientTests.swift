import Foundation
import XCTest

/// Two mappings of one `name` posted to WireMock 2.35.1 and to `understudy serve` sharing one
/// root, saved and reset with WireMock's own Python client: on both, both answer (`requests`
/// and curl) before and after `mappings/save` then `mappings/reset`, and each server reads the
/// other's saved files back, same names and all.
final class WireMockMappingIdentityClientTests: XCTestCase {
    static let root = LockedServers.temporaryRoot("wiremock-identity")

    private static let servers = LockedServers(root: root)

    override class func tearDown() {
        servers.stop(removing: root)
        super.tearDown()
    }

    func testSameNamedMappingsBothAnswerOnBothServersBeforeAndAfterSaveThenReset() throws {
        let ports = try Self.servers.ports()
        var outputs: [String: [String]] = [:]
        for (server, port) in [("wiremock", ports.wireMock), ("understudy", ports.understudy)] {
            let output = try runPythonScript(Self.script, arguments: ["http://127.0.0.1:\(port)", server])
            XCTAssertEqual(output.status, 0, "\(server): \(output.stderr)")
            outputs[server] = output.stdout.split(separator: "\n").map(String.init)
        }
        let expected = [
            "created: 2 mappings named 'same name', 2 ids",
            "answers: first second",
            "listed: 2",
            "after save and reset: first second",
            "listed: 2",
        ]
        XCTAssertEqual(outputs["wiremock"], expected, "WireMock 2.35.1 is the reference")
        XCTAssertEqual(outputs["understudy"], expected)

        // WireMock's saved files, read back by Understudy's reset, and the other way round.
        for port in [ports.wireMock, ports.understudy] {
            XCTAssertEqual(try curl("POST", "/__admin/mappings/reset", port: port).prefix(3), "200")
            for server in ["wiremock", "understudy"] {
                XCTAssertEqual(try curl("GET", "/\(server)/one", port: port), "200 first", "\(server)'s file on port \(port)")
                XCTAssertEqual(try curl("GET", "/\(server)/two", port: port), "200 second", "\(server)'s file on port \(port)")
            }
        }
    }

    /// Posts two mappings of one name with WireMock's client, fetches both with `requests`,
    /// saves, resets, fetches again; URLs start with the server's name so that both servers'
    /// files can share the root.
    static let script = #"""
import sys, requests
from wiremock.constants import Config
from wiremock.client import *
base, prefix = sys.argv[1], sys.argv[2]
Config.base_url = base + "/__admin"

# The client's Mapping has no `name`: posted as a mapping file's author writes it.
ids = set()
for path, body in [("one", "first"), ("two", "second")]:
    created = requests.post(base + "/__admin/mappings", json={"name": "same name",
        "request": {"method": "GET", "url": "/%s/%s" % (prefix, path)}, "response": {"status": 200, "body": body}})
    assert created.status_code == 201, created.text
    ids.add(created.json()["id"])
print("created: 2 mappings named 'same name', %d ids" % len(ids))

def answers():
    return " ".join(requests.get("%s/%s/%s" % (base, prefix, path)).text for path in ["one", "two"])

def listed():
    mappings = requests.get(base + "/__admin/mappings").json()["mappings"]
    return len([m for m in mappings if m.get("name") == "same name" and m["request"]["url"].startswith("/" + prefix + "/")])

print("answers:", answers())
print("listed:", listed())
Mappings.persist_mappings()
Mappings.reset_mappings()
print("after save and reset:", answers())
print("listed:", listed())
"""#

    // MARK: - Helpers

    private func curl(_ method: String, _ path: String, port: Int) throws -> String {
        let output = String(decoding: try curlOutput([
            "--max-time", "60", "--request", method, "--write-out", "\n%{http_code}", "http://127.0.0.1:\(port)\(path)",
        ]), as: UTF8.self)
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false)
        return "\(lines.last ?? "") \(lines.dropLast().joined(separator: "\n"))".trimmingCharacters(in: .whitespaces)
    }
}
