import Foundation
@testable import UnderstudyImages
import UnderstudySupport
import XCTest

/// The package's one bounded cache: least recently used first out, under a count and a cost limit.
final class BoundedCacheTests: XCTestCase {
    func testTheLeastRecentlyUsedGoesFirstPastTheCountLimit() {
        var cache = BoundedCache<String, Int>(countLimit: 3)
        for (index, key) in ["a", "b", "c"].enumerated() { cache.insert(index, for: key) }
        XCTAssertEqual(cache.value(for: "a"), 0, "a is now the most recently used")
        var evicted: [Int] = []
        cache.insert(3, for: "d") { evicted.append($0) }
        XCTAssertEqual(evicted, [1], "b, the least recently used, went")
        XCTAssertEqual(cache.keysByRecency, ["d", "a", "c"])
        XCTAssertNil(cache.value(for: "b"))
        XCTAssertEqual(cache.count, 3)
        XCTAssertEqual(cache.evictions, 1)
        cache.insert(30, for: "d")
        XCTAssertEqual(cache.count, 3, "replacing a key evicts nothing")
        XCTAssertEqual(cache.value(for: "d"), 30)
        XCTAssertEqual(cache.removeValue(for: "c"), 2)
        XCTAssertEqual(cache.keysByRecency, ["d", "a"])
        XCTAssertEqual(cache.values, [30, 0])
    }

    func testTheCostLimitEvictsUntilANewValueFitsAndRefusesOneLargerThanAll() {
        var cache = ByteLRUCache<Int>(capacity: 10)
        XCTAssertTrue(cache.insert(Data(count: 4), for: 1))
        XCTAssertTrue(cache.insert(Data(count: 4), for: 2))
        XCTAssertTrue(cache.insert(Data(count: 6), for: 3))
        XCTAssertEqual(cache.keysByRecency, [3, 2], "1 went to make room")
        XCTAssertEqual(cache.totalBytes, 10)
        XCTAssertFalse(cache.insert(Data(count: 11), for: 4), "larger than the whole cache")
        XCTAssertEqual(cache.keysByRecency, [3, 2], "and nothing was evicted for it")
        XCTAssertTrue(cache.insert(Data(count: 10), for: 5))
        XCTAssertEqual(cache.keysByRecency, [5])
        XCTAssertEqual(cache.evictions, 3)
        cache.removeAll()
        XCTAssertEqual(cache.count, 0)
        XCTAssertEqual(cache.totalBytes, 0)
        // Freed slots are reused: the order stays right after much churn.
        for key in 0..<100 { cache.insert(Data(count: 1), for: key) }
        XCTAssertEqual(cache.keysByRecency, Array((90..<100).reversed()))
    }
}
