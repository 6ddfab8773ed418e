import Foundation
import Testing
import UnderstudyTesting

/// `.stubbed(from:)` takes a relative path from the package holding the test file, and says so
/// when the path leads nowhere.
@Suite struct StubFilePathTests {
    static let package = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func aDirectoryThatIsNotThereFailsTheTestWithThePathTried() async throws {
        let recorded = try await issuesRecorded(by: .stubbed(from: "No/Such/Stubs")) {
            Issue.record("the body ran")
        }
        #expect(recorded.map(\.text) == ["""
            .stubbed(from: "No/Such/Stubs") in \(#filePath): \(Self.package.path)/No/Such/Stubs does not exist \
            (the path is taken relative to \(Self.package.path), the package holding the test file)
            """])
    }

    @Test func aFileOutsideAnyPackageNeedsAnAbsolutePath() async throws {
        let recorded = try await issuesRecorded(by: .stubbed(from: "Stubs", filePath: "/nonexistent/Tests/AppTests/AppTests.swift")) {
            Issue.record("the body ran")
        }
        #expect(recorded.map(\.text) == ["""
            .stubbed(from: "Stubs") in /nonexistent/Tests/AppTests/AppTests.swift: no directory above that file \
            holds a Package.swift, so the relative path has nothing to start from; pass an absolute path, \
            or load from the test bundle: .stubbed(from: Bundle.module, subdirectory: "Stubs")
            """])
    }

    @Test func anAbsolutePathIsTakenAsIs() async throws {
        let absolute = Self.package.appendingPathComponent("Tests/UnderstudyTestingTests/Fixtures/Stubs").path
        let recorded = try await issuesRecorded(by: .stubbed(from: absolute, filePath: "/nonexistent/AppTests.swift")) {
            #expect(Stubbed.registry.stubs.map(\.name) == ["avatar"])
        }
        #expect(recorded.isEmpty)
    }

    @Test func aBadStubFileFailsTheTestWithTheLoadersError() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("understudy-bad-stubs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try "stubs:\n  - request: { path: /a }\n    response: { stauts: 200 }\n".write(
            to: directory.appendingPathComponent("bad.yaml"), atomically: true, encoding: .utf8)
        let recorded = try await issuesRecorded(by: .stubbed(from: directory.path)) {
            Issue.record("the body ran")
        }
        // The body never ran: the only issue is the loader's error, naming file, line and key.
        #expect(recorded.count == 1, "\(recorded)")
        #expect(recorded.first?.text.hasPrefix("\(directory.path)/bad.yaml:3: stubs[0].response.stauts: unknown key 'stauts'") == true, "\(recorded)")
    }
}
