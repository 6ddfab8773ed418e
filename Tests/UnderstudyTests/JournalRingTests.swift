import Foundation
@testable import Understudy
import XCTest

/// The ring the journal keeps its records in: oldest first through wrap-around and growth,
/// updated in place, and a copy taken out of the lock unchanged by what happens after.
final class JournalRingTests: XCTestCase {
    private func record(_ n: Int) throws -> JournalRecord {
        let request = try XCTUnwrap(StubRequest("http://h/\(n)"))
        return JournalRecord(request, transport: .server, redirectedFrom: nil, startTime: Date(timeIntervalSinceReferenceDate: Double(n)))
    }

    private func paths(_ ring: JournalRing) -> [String] {
        ring.map(\.request.path)
    }

    func testRecordsStayOldestFirstAcrossWrapAroundAndGrowth() throws {
        var ring = JournalRing()
        ring.reserveCapacity(4)
        for n in 1...4 { ring.append(try record(n)) }
        ring.removeFirst(3)
        // The next three wrap around the four slots; the fourth after them makes the ring grow.
        for n in 5...8 { ring.append(try record(n)) }
        XCTAssertEqual(paths(ring), ["/4", "/5", "/6", "/7", "/8"])
        XCTAssertEqual(ring.count, 5)
        for n in 9...40 { ring.append(try record(n)) }
        ring.removeFirst(30)
        XCTAssertEqual(paths(ring), (34...40).map { "/\($0)" })
        XCTAssertEqual(ring.first?.request.path, "/34")
        XCTAssertEqual(ring.last?.request.path, "/40")
    }

    /// A journal bounded to hold five records rotates through five slots, not the next power
    /// of two: its memory is what its bound says.
    func testAReservedRingRotatesThroughExactlyTheSlotsReserved() throws {
        var ring = JournalRing()
        ring.reserveCapacity(5)
        XCTAssertEqual(ring.capacity, 5)
        for n in 1...5 { ring.append(try record(n)) }
        for n in 6...23 {
            ring.removeFirst(1)
            ring.append(try record(n))
            XCTAssertEqual(paths(ring), ((n - 4)...n).map { "/\($0)" }, "after /\(n), wrapped around")
        }
        XCTAssertEqual(ring.capacity, 5)
        ring.append(try record(24))
        XCTAssertEqual(ring.capacity, 10, "full, it doubles")
        XCTAssertEqual(paths(ring), (19...24).map { "/\($0)" })
    }

    func testARecordIsUpdatedInPlaceAndACopyKeepsWhatItHad() throws {
        var ring = JournalRing()
        for n in 1...3 { ring.append(try record(n)) }
        let copy = ring
        let result = InteractionResult(stubName: "second", status: 200, bodyBytesSent: 3, outcome: .completed)
        ring[1].complete(with: result, body: nil, at: Date())
        XCTAssertEqual(ring[1].stubName, "second")
        XCTAssertEqual(ring[1].outcome, .completed)
        XCTAssertNil(copy[1].stubName, "the copy taken before shares nothing written after")
        XCTAssertEqual(copy[1].outcome, .inFlight)
        ring.removeAll(keepingCapacity: true)
        XCTAssertTrue(ring.isEmpty)
        XCTAssertEqual(paths(copy), ["/1", "/2", "/3"])
        // Updated in place with no copy outstanding, the records beside it untouched.
        for n in 4...6 { ring.append(try record(n)) }
        ring[1].complete(with: result, body: nil, at: Date())
        ring[2].stubName = "third"
        XCTAssertEqual(paths(ring), ["/4", "/5", "/6"])
        XCTAssertEqual(ring.map(\.stubName), [nil, "second", "third"])
    }

    func testUpdatingOneRecordLeavesEveryOtherAsItWas() throws {
        var ring = JournalRing()
        for n in 1...3 { ring.append(try record(n)) }
        ring[1].stubName = "second"
        ring[2].isHTTP2 = true
        XCTAssertEqual(paths(ring), ["/1", "/2", "/3"])
        XCTAssertEqual(ring.map(\.stubName), [nil, "second", nil])
        XCTAssertEqual(ring.map(\.isHTTP2), [false, false, true])
    }
}
