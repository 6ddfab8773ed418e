import UnderstudyImages
@testable import UnderstudyServer
import XCTest

/// The table an event loop keeps its repeated requests in: every key kept is found with its own
/// entry, keys whose quick hashes collide included, and it stays within its bounds, letting go
/// first of what was asked for least recently.
final class RepeatedRequestsTests: XCTestCase {
    /// A key whose quick hash the test chooses: `id` tells keys apart, `hash` is what the table hashes.
    private struct Key: RepeatedRequestKey {
        let id: Int
        let hash: UInt64
        var bytes = 100

        var quickHash: UInt64 { hash }
        var keptBytes: Int { bytes }

        static func == (lhs: Key, rhs: Key) -> Bool { lhs.id == rhs.id }
    }

    private typealias Table = RepeatedRequests<Key, String>

    func testEveryKeptKeyIsFoundWithItsOwnEntryThoughTheirHashesCollide() {
        let table = Table()
        let keys = [Key(id: 1, hash: 7), Key(id: 2, hash: 7), Key(id: 3, hash: 7), Key(id: 4, hash: 8)]
        for key in keys { table.keep("entry \(key.id)", for: key) }
        XCTAssertEqual(table.count, keys.count)
        for key in keys { XCTAssertEqual(table.entry(for: key), "entry \(key.id)") }
        XCTAssertNil(table.entry(for: Key(id: 99, hash: 7)), "the same hash, another key")
        XCTAssertNil(table.entry(for: Key(id: 98, hash: 9)))

        table.keep("entry 2, again", for: keys[1])
        XCTAssertEqual(table.count, keys.count, "kept in place of the earlier one")
        XCTAssertEqual(table.entry(for: keys[1]), "entry 2, again")
    }

    /// Many random keeps, lookups and clears, against a dictionary: whatever the table finds is
    /// what was kept last for that key, every request it counts can be found, and it stays
    /// within its bound.
    func testItAgreesWithADictionaryThroughRandomKeepsEvictionsAndClears() {
        var random = SplitMix64(seed: 38)
        let table = Table()
        var model: [Int: String] = [:]
        // More keys than the table keeps, with few distinct hashes.
        func key(_ id: Int) -> Key { Key(id: id, hash: 1 + (UInt64(id) * 2_654_435_761) % 300) }
        for step in 0..<30_000 {
            let id = Int(random.next() % 1_500)
            switch random.next() % 10 {
            case 0..<5:
                table.keep("\(id) at \(step)", for: key(id))
                model[id] = "\(id) at \(step)"
            case 9 where random.next() % 1_000 == 0:
                table.removeAll()
                model.removeAll()
            default:
                if let found = table.entry(for: key(id)) { XCTAssertEqual(found, model[id], "step \(step)") }
            }
            XCTAssertLessThanOrEqual(table.count, Table.maxEntries)
            if step % 500 == 0 {
                let reachable = model.keys.filter { table.entry(for: key($0)) != nil }.count
                XCTAssertEqual(reachable, table.count, "step \(step): every request counted can be found")
            }
        }
    }

    func testPastItsBoundsTheLeastRecentlyAskedForGoFirst() {
        let table = Table()
        let limit = Table.maxEntries
        func key(_ id: Int) -> Key { Key(id: id, hash: UInt64(id) &* 0x9E37_79B9_7F4A_7C15 | 1) }
        let keys = (0..<limit).map(key)
        for key in keys { table.keep("\(key.id)", for: key) }
        XCTAssertEqual(table.count, limit)
        // Half of them asked for again, then as many new requests kept.
        for key in keys where key.id % 2 == 0 { _ = table.entry(for: key) }
        let newer = (limit..<(limit + limit / 2)).map(key)
        for key in newer { table.keep("\(key.id)", for: key) }
        XCTAssertEqual(table.count, limit, "never past its bound")
        XCTAssertEqual(keys.filter { $0.id % 2 == 0 && table.entry(for: $0) != nil }.count, limit / 2, "those asked for again stay")
        XCTAssertEqual(keys.filter { $0.id % 2 == 1 && table.entry(for: $0) != nil }.count, 0, "the others made room")
        XCTAssertEqual(newer.filter { table.entry(for: $0) != nil }.count, limit / 2)

        let big = Table()
        let third = Table.maxBytes / 3
        for id in 0..<3 { big.keep("\(id)", for: Key(id: id, hash: UInt64(id + 1), bytes: third)) }
        XCTAssertEqual(big.count, 3)
        big.keep("3", for: Key(id: 3, hash: 4, bytes: third))
        XCTAssertEqual(big.count, 3, "within its bytes")
        XCTAssertNil(big.entry(for: Key(id: 0, hash: 1)), "the oldest made room")
        big.keep("huge", for: Key(id: 4, hash: 5, bytes: Table.maxBytes + 1))
        XCTAssertNil(big.entry(for: Key(id: 4, hash: 5)), "a key larger than the whole bound is not kept")
        XCTAssertEqual(big.count, 3)
    }
}
