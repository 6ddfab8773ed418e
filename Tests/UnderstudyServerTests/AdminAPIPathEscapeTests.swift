import Foundation
import Understudy
import UnderstudyServer
import XCTest

/// Stubs posted to the admin API may not read files outside the stub directory: `..`, absolute
/// paths and symlinks are a 400 naming the field, and nothing is added. A server without a stub
/// directory (`understudy serve`) refuses `file:` in posted stubs altogether.
final class AdminAPIPathEscapeTests: XCTestCase {
    func testPostedFilePathsThatEscapeTheStubDirectoryAre400NamingTheField() async throws {
        let base = try temporaryDirectory()
        let directory = base.appendingPathComponent("stubs", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data("secret".utf8).write(to: base.appendingPathComponent("secret.txt"))
        try FileManager.default.createSymbolicLink(
            at: directory.appendingPathComponent("link.txt"), withDestinationURL: base.appendingPathComponent("secret.txt")
        )
        try FileManager.default.createSymbolicLink(at: directory.appendingPathComponent("etc"), withDestinationURL: URL(fileURLWithPath: "/etc"))
        let registry = StubRegistry()
        let admin = AdminAPI(registry: registry, token: nil, stubDirectory: directory)
        let shown = directory.path

        let cases: [(body: String, field: String, message: String)] = [
            (#"{"response": {"file": "../../etc/passwd"}}"#, "response.file",
             "path '../../etc/passwd' escapes \(shown); expected a path inside it"),
            (#"{"response": {"file": "/etc/passwd"}}"#, "response.file",
             "absolute path '/etc/passwd' is refused; expected a path relative to the stub file, inside \(shown)"),
            (#"{"response": {"file": "link.txt"}}"#, "response.file",
             "path 'link.txt' resolves outside \(shown) through a symlink; expected a file inside it"),
            (#"{"response": {"file": "etc/passwd"}}"#, "response.file",
             "path 'etc/passwd' resolves outside \(shown) through a symlink; expected a file inside it"),
            (#"{"stubs": [{"response": {"image": {"file": "../secret.txt", "as": "png"}}}]}"#, "stubs[0].response.image.file",
             "path '../secret.txt' escapes \(shown); expected a path inside it"),
        ]
        for (body, field, message) in cases {
            let response = await admin.handle(AdminRequest(method: "POST", target: "/__admin/stubs", body: Data(body.utf8)))
            XCTAssertEqual(response.status, 400, body)
            let error = try JSONDecoder().decode(AdminJSON.Error.self, from: response.body)
            XCTAssertEqual(error.field, field, body)
            XCTAssertEqual(error.error, "request body:1: \(field): \(message)", body)
            XCTAssertFalse(String(decoding: response.body, as: UTF8.self).contains("secret\""), "no file content is echoed")
        }
        XCTAssertTrue(registry.stubs.isEmpty, "nothing is added from a refused body")
    }

    func testTheServerRefusesPostedFileReferencesOverHTTP() async throws {
        let registry = StubRegistry()
        try await withServer(registry) { server in
            let result = try curl([
                "--write-out", "\n%{http_code}", "-X", "POST", "-H", "Content-Type: text/yaml",
                "--data-binary", "name: passwd\nrequest: { path: /p }\nresponse:\n  file: ../../etc/passwd\n",
                server.baseURL.absoluteString + "/__admin/stubs",
            ])
            let lines = result.text.split(separator: "\n")
            XCTAssertEqual(lines.last, "400")
            let error = try JSONDecoder().decode(AdminJSON.Error.self, from: Data(lines[0].utf8))
            XCTAssertEqual(error.field, "response.file")
            XCTAssertEqual(
                error.error,
                "request body:4: response.file: file '../../etc/passwd' cannot be used here; expected stubs loaded from a stub directory"
            )
        }
        XCTAssertTrue(registry.stubs.isEmpty)
    }

    private func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("admin-escape-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }
}
