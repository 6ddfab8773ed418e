import Foundation
import Understudy
import UnderstudyXCTest
import XCTest

/// The assertion messages, word for word.
final class FailureMessageTests: XCTestCase {
    func journal(_ paths: [String], unmatched: Set<String> = []) -> Journal {
        let journal = Journal()
        for path in paths {
            let id = journal.open(StubRequest(url: URL(string: "http://img.test\(path)")!), transport: .inProcess, httpVersion: .http1_1)
            if unmatched.contains(path) {
                let miss = NearMiss(stubName: "cat", matchedParts: 1, totalParts: 2, mismatches: [Mismatch(expected: "path is /cat.png", actual: path)])
                journal.complete(id, with: InteractionResult(stubName: nil, status: nil, outcome: .unmatched, nearMisses: [miss]))
            } else {
                journal.complete(id, with: InteractionResult(stubName: "s", status: 200, outcome: .completed))
            }
        }
        return journal
    }

    func testRequested() {
        let j = journal(["/a.png", "/b.png"])
        XCTAssertNil(FailureMessages.requested(j, .path("/a.png"), times: 1))
        XCTAssertNil(FailureMessages.requested(j, .pathExtension("png"), times: nil))
        XCTAssertEqual(FailureMessages.requested(j, .path("/a.png"), times: 2), """
            expected 2 requests matching path is /a.png, got 1
            Requests made:
              1. GET http://img.test/a.png -> stub "s" 200
              2. GET http://img.test/b.png -> stub "s" 200
            """)
        XCTAssertEqual(FailureMessages.requested(Journal(), .path("/a.png"), times: nil), """
            expected a request matching path is /a.png, got none
            No requests were made.
            """)
        XCTAssertEqual(FailureMessages.requested(j, .pathExtension("png"), times: 1), """
            expected 1 request matching extension is png, got 2
            Requests made:
              1. GET http://img.test/a.png -> stub "s" 200
              2. GET http://img.test/b.png -> stub "s" 200
            """)
    }

    func testNotRequested() {
        let j = journal(["/a.png", "/b.webp"])
        XCTAssertNil(FailureMessages.notRequested(j, .pathExtension("gif")))
        XCTAssertEqual(FailureMessages.notRequested(j, .pathExtension("webp")), """
            expected no request matching extension is webp, got 1:
              GET http://img.test/b.webp -> stub "s" 200
            """)
    }

    func testNoUnmatchedRequests() {
        XCTAssertNil(FailureMessages.noUnmatchedRequests(journal(["/a.png"])))
        XCTAssertEqual(FailureMessages.noUnmatchedRequests(journal(["/a.png", "/dog.png", "/x.png"], unmatched: ["/dog.png", "/x.png"])), """
            2 unmatched requests:
              GET http://img.test/dog.png
                1. "cat" (1 of 2 parts matched): path is /cat.png (got /dog.png)
              GET http://img.test/x.png
                1. "cat" (1 of 2 parts matched): path is /cat.png (got /x.png)
            """)
    }

    func testAllStubsUsed() {
        let stubs = StubRegistry()
        stubs.stub(.path("/a"), named: "a", response: .status(200))
        stubs.stub(.path("/b"), named: "b", response: .status(200))
        stubs.stub(.path("/c"), named: "c", response: .status(200))
        _ = stubs.match(StubRequest(url: URL(string: "http://x.test/b")!))
        XCTAssertEqual(FailureMessages.allStubsUsed(stubs), #"2 stubs never used: "a", "c""#)
        _ = stubs.match(StubRequest(url: URL(string: "http://x.test/a")!))
        _ = stubs.match(StubRequest(url: URL(string: "http://x.test/c")!))
        XCTAssertNil(FailureMessages.allStubsUsed(stubs))
    }

    func testRequestOrder() {
        let j = journal(["/thumb.webp", "/other", "/full.webp"])
        XCTAssertNil(FailureMessages.requestOrder(j, [.path("/thumb.webp"), .path("/full.webp")]))
        XCTAssertEqual(FailureMessages.requestOrder(j, [.path("/full.webp"), .path("/thumb.webp")]), """
            expected requests in this order:
              1. path is /full.webp
              2. path is /thumb.webp
            but found no request matching path is /thumb.webp after request #3
            Requests made:
              1. GET http://img.test/thumb.webp -> stub "s" 200
              2. GET http://img.test/other -> stub "s" 200
              3. GET http://img.test/full.webp -> stub "s" 200
            """)
    }
}

/// The assertions report at the caller's file and line.
final class AssertionLocationTests: XCTestCase {
    private var recorded: [(description: String, file: String, line: Int)] = []
    private var capturing = false

    override func recordFailure(withDescription description: String, inFile filePath: String, atLine lineNumber: Int, expected: Bool) {
        if capturing {
            recorded.append((description, filePath, lineNumber))
        } else {
            super.recordFailure(withDescription: description, inFile: filePath, atLine: lineNumber, expected: expected)
        }
    }

    func testEveryAssertionPointsAtTheCaller() {
        let stubs = StubRegistry()
        stubs.stub(.path("/a"), named: "a", response: .status(200))
        let id = stubs.journal.open(StubRequest(url: URL(string: "http://x.test/zzz")!), transport: .inProcess, httpVersion: .http1_1)
        stubs.journal.complete(id, with: InteractionResult(stubName: nil, status: nil, outcome: .unmatched))
        capturing = true
        let line = #line
        XCTAssertRequested(stubs, .path("/a"), times: 1)
        XCTAssertNotRequested(stubs, .path("/zzz"))
        XCTAssertNoUnmatchedRequests(stubs)
        XCTAssertAllStubsUsed(stubs)
        XCTAssertRequestOrder(stubs, [.path("/a")])
        capturing = false
        XCTAssertEqual(recorded.map(\.line), [line + 1, line + 2, line + 3, line + 4, line + 5])
        XCTAssertTrue(recorded.allSatisfy { $0.file == #filePath })
        XCTAssertEqual(recorded.first?.description.hasPrefix("failed - expected 1 request matching path is /a, got 0"), true, recorded.first?.description ?? "")
    }

    func testPassingAssertionsRecordNothing() {
        let stubs = StubRegistry()
        stubs.stub(.path("/a"), named: "a", response: .status(200))
        _ = stubs.match(StubRequest(url: URL(string: "http://x.test/a")!))
        _ = stubs.journal.open(StubRequest(url: URL(string: "http://x.test/a")!), transport: .inProcess, httpVersion: .http1_1)
        capturing = true
        XCTAssertRequested(stubs, .path("/a"), times: 1)
        XCTAssertNotRequested(stubs, .path("/b"))
        XCTAssertNoUnmatchedRequests(stubs)
        XCTAssertAllStubsUsed(stubs)
        XCTAssertRequestOrder(stubs, [.path("/a")])
        capturing = false
        XCTAssertTrue(recorded.isEmpty, "\(recorded)")
    }
}
