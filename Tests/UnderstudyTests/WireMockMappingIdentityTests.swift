import Foundation
@testable import Understudy
import XCTest

/// A WireMock mapping is known by its `id`; its `name` is a label (SPEC 22): two mappings of one
/// name are both kept and both answer, from files and after a reset, while Swift stubs keep
/// replacing the stub of their name.
final class WireMockMappingIdentityTests: XCTestCase {
    private func matchedName(_ stubs: StubRegistry, _ path: String) -> String? {
        stubs.match(StubRequest(url: URL(string: "http://127.0.0.1:8080" + path)!))?.stubName
    }

    private func body(_ stubs: StubRegistry, _ path: String) -> String? {
        guard case .resolved(.response(let prepared)) = stubs.resolveImmediately(StubRequest(url: URL(string: "http://127.0.0.1:8080" + path)!))
        else { return nil }
        return String(decoding: prepared.body, as: UTF8.self)
    }

    func testTwoSameNamedMappingsInFilesBothAnswerBeforeAndAfterAReset() throws {
        let sandbox = try WireMockSandbox()
        try sandbox.write("mappings/a.json", """
            {"mappings": [
              {"name": "cat", "request": {"url": "/one"}, "response": {"body": "first"}},
              {"name": "cat", "request": {"url": "/two"}, "response": {"body": "second"}}
            ]}
            """)
        try sandbox.write("mappings/b.json", #"{"name": "cat", "request": {"url": "/three"}, "response": {"body": "third"}}"#)
        XCTAssertEqual(sandbox.issues(), [], "a shared name is no issue")
        let stubs = StubRegistry()
        try stubs.load(wireMock: sandbox.directory)
        for _ in 0..<2 {
            XCTAssertEqual(stubs.stubs.count, 3)
            XCTAssertEqual([body(stubs, "/one"), body(stubs, "/two"), body(stubs, "/three")], ["first", "second", "third"])
            XCTAssertEqual(Set(["/one", "/two", "/three"].compactMap { matchedName(stubs, $0) }), ["cat", "cat #2", "cat #3"],
                           "each keeps a name of its own for the journal")
            XCTAssertEqual(Set(stubs.stubs.compactMap { stub -> String? in
                if case .object(let members)? = stub.wireMock?.json, case .string(let name)? = members["name"] { return name }
                return nil
            }), ["cat"], "the mapping keeps its label as written")
            try stubs.reset()
        }
    }

    func testTwoFilesGivingOneIDAreAnIssueNamingBoth() throws {
        let sandbox = try WireMockSandbox()
        try sandbox.write("mappings/a.json", #"{"id": "8c5db8b0-2db4-4ad7-a99f-38c9b00da3f7", "request": {"url": "/a"}}"#)
        try sandbox.write("mappings/b.json", #"{"uuid": "8C5DB8B0-2DB4-4AD7-A99F-38C9B00DA3F7", "name": "b", "request": {"url": "/b"}}"#)
        XCTAssertEqual(sandbox.issues(), [
            "wiremock/mappings/b.json:1: id: duplicate mapping id '8c5db8b0-2db4-4ad7-a99f-38c9b00da3f7'; already used by the mapping at wiremock/mappings/a.json:1; expected each mapping's own id (or none)",
        ])
    }

    func testAMappingOfAKnownIDReplacesItAndOneOfAKnownNameIsKeptBeside() throws {
        let stubs = StubRegistry()
        let first = try WireMockLoader.mapping(parsing: #"{"id": "11111111-1111-4111-8111-111111111111", "name": "x", "request": {"url": "/a"}, "response": {"body": "a"}}"#, root: nil)
        let again = try WireMockLoader.mapping(parsing: #"{"id": "11111111-1111-4111-8111-111111111111", "name": "y", "request": {"url": "/b"}, "response": {"body": "b"}}"#, root: nil)
        let other = try WireMockLoader.mapping(parsing: #"{"id": "22222222-2222-4222-8222-222222222222", "name": "y", "request": {"url": "/c"}, "response": {"body": "c"}}"#, root: nil)
        stubs.add(first)
        stubs.add(again)
        XCTAssertNil(matchedName(stubs, "/a"), "the id's old mapping is gone")
        XCTAssertEqual(matchedName(stubs, "/b"), "y")
        stubs.add(other)
        XCTAssertEqual(stubs.stubs.count, 2)
        XCTAssertEqual(matchedName(stubs, "/b"), "y")
        XCTAssertEqual(matchedName(stubs, "/c"), "y #2")
        stubs.add(again)
        XCTAssertEqual(stubs.stubs.count, 2, "posting a known id again replaces it, even under its numbered name")
        XCTAssertEqual(body(stubs, "/c"), "c")
    }

    func testASwiftStubStillReplacesTheStubOfItsName() {
        let stubs = StubRegistry()
        stubs.stub(.path("/a"), named: "same", response: .text("a"))
        stubs.stub(.path("/b"), named: "same", response: .text("b"))
        XCTAssertEqual(stubs.stubs.map(\.name), ["same"])
        XCTAssertNil(matchedName(stubs, "/a"))
        XCTAssertEqual(matchedName(stubs, "/b"), "same")
    }
}
