import Foundation
import XCTest

/// WireMock's own Python client creates mappings with the fields issue 65 adds (cookies, basic
/// credentials, `doesNotMatch`, `matchesJsonPath`, `equalToJson` options, `proxyBaseUrl` with
/// `additionalProxyRequestHeaders`, a `{{#if}}` template), and Python's `requests` asks; the
/// same script prints the same lines against WireMock 2.35.1 and against `understudy serve`.
final class WireMockPythonClientMatchersTests: XCTestCase {
    static let root = LockedServers.temporaryRoot("wiremock-client-matchers")

    private static let servers = LockedServers(root: root, flags: ["--local-response-templating"])

    override class func tearDown() {
        servers.stop(removing: root)
        super.tearDown()
    }

    func testTheClientsMappingsAnswerAlikeOnBothServers() throws {
        let ports = try Self.servers.ports()
        let expected = [
            "cookie: 200 404",
            "auth: 200 404",
            "not debug: 200 200 404",
            "json path: 200 404",
            "loose json: 200 404",
            "proxied: 203 from the origin",
            "template: large small",
        ]
        for (server, port) in [("wiremock", ports.wireMock), ("understudy", ports.understudy)] {
            let output = try runPythonScript(Self.script, arguments: ["http://127.0.0.1:\(port)", "http://127.0.0.1:\(ports.wireMock)", server])
            XCTAssertEqual(output.status, 0, "\(server): \(output.stderr)")
            XCTAssertEqual(output.stdout.split(separator: "\n").map(String.init), expected, server)
        }
    }

    static let script = #"""
import sys, requests
from wiremock.constants import Config
from wiremock.client import *
base, origin, prefix = sys.argv[1], sys.argv[2], "/" + sys.argv[3]
Config.base_url = base + "/__admin"

def create(request, response):
    Mappings.create_mapping(Mapping(request=request, response=response))

create(MappingRequest(method="GET", url_path=prefix + "/cookie", cookies={"session": {"matches": "[0-9]+"}}), MappingResponse(status=200, body="c"))
create(MappingRequest(method="GET", url_path=prefix + "/auth", basic_auth_credentials=BasicAuthCredentials(username="ann", password="s3cret")), MappingResponse(status=200, body="a"))
create(MappingRequest(method="GET", url_path=prefix + "/not", headers={"X-Mode": {"doesNotMatch": "debug.*"}}), MappingResponse(status=200, body="n"))
create(MappingRequest(method="POST", url_path=prefix + "/json", body_patterns=[{"matchesJsonPath": "$.images[?(@.width > 100)]"}]), MappingResponse(status=200, body="j"))
create(MappingRequest(method="POST", url_path=prefix + "/loose", body_patterns=[{"equalToJson": {"a": [1, 2]}, "ignoreArrayOrder": True, "ignoreExtraElements": True}]), MappingResponse(status=200, body="l"))
# The origin is WireMock's own port; the mapping there answers only when the added header arrives.
requests.post(origin + "/__admin/mappings", json={"request": {"urlPathPattern": "/origin" + prefix + "/proxied", "headers": {"X-Token": {"equalTo": "abc"}}},
                                                   "response": {"status": 203, "body": "from the origin"}})
create(MappingRequest(method="GET", url_path=prefix + "/proxied"), MappingResponse(proxy_base_url=origin + "/origin", additional_proxy_request_headers={"X-Token": "abc"}))
create(MappingRequest(method="GET", url_path=prefix + "/template"),
       MappingResponse(status=200, body="{{#if (eq request.query.size.[0] 'l')}}large{{else}}small{{/if}}", transformers=["response-template"]))

def status(method, path, **options):
    return requests.request(method, base + prefix + path, **options).status_code

print("cookie:", status("GET", "/cookie", cookies={"session": "42"}), status("GET", "/cookie", cookies={"session": "abc"}))
print("auth:", status("GET", "/auth", auth=("ann", "s3cret")), status("GET", "/auth", auth=("ann", "nope")))
print("not debug:", status("GET", "/not"), status("GET", "/not", headers={"X-Mode": "quiet"}), status("GET", "/not", headers={"X-Mode": "debug-all"}))
print("json path:", status("POST", "/json", json={"images": [{"width": 150}]}), status("POST", "/json", json={"images": [{"width": 50}]}))
print("loose json:", status("POST", "/loose", json={"a": [2, 1, 3], "b": 0}), status("POST", "/loose", json={"a": [2]}))
proxied = requests.get(base + prefix + "/proxied")
print("proxied:", proxied.status_code, proxied.text)
print("template:", requests.get(base + prefix + "/template?size=l").text, requests.get(base + prefix + "/template").text)
"""#
}
