import Foundation
import Understudy
import UnderstudyImages
import XCTest

/// The delivery state machine, without clocks or sockets.
final class DeliveryPlanTests: XCTestCase {
    func plan(_ response: PreparedResponse, method: String = "GET") -> [DeliveryAction] {
        Array(response.deliveryPlan(method: method))
    }

    func testPlainResponseSendsHeadBodyAndFinishes() {
        XCTAssertEqual(plan(PreparedResponse(status: 200, body: Data(count: 10))), [.sendHead, .sendBody(0..<10), .end(close: false)])
    }

    func testHeadAnd204SendNoBody() {
        XCTAssertEqual(plan(PreparedResponse(status: 200, body: Data(count: 10)), method: "HEAD"), [.sendHead, .end(close: false)])
        XCTAssertEqual(plan(PreparedResponse(status: 204, body: Data(count: 10))), [.sendHead, .end(close: false)])
    }

    func testOnly1xx204And304HaveNoBody() {
        for status in [100, 101, 103, 199, 204, 304] {
            XCTAssertTrue(PreparedResponse.hasNoBody(status: status), "\(status)")
            XCTAssertEqual(plan(PreparedResponse(status: status, body: Data(count: 10))), [.sendHead, .end(close: false)], "\(status)")
        }
        for status in [200, 201, 205, 206, 299, 302, 303, 305, 404, 500] {
            XCTAssertFalse(PreparedResponse.hasNoBody(status: status), "\(status)")
            XCTAssertEqual(plan(PreparedResponse(status: status, body: Data(count: 10))), [.sendHead, .sendBody(0..<10), .end(close: false)], "\(status)")
        }
    }

    func testDelayComesFirstAndAlsoDelaysAFault() {
        XCTAssertEqual(plan(PreparedResponse(status: 200, delay: .milliseconds(250))), [.wait(.milliseconds(250)), .sendHead, .end(close: false)])
        XCTAssertEqual(plan(PreparedResponse(status: 200, delay: .seconds(1), fault: .connectionReset)), [.wait(.seconds(1)), .fail(.connectionReset)])
    }

    func testBandwidthPacesSlicesOfSixteenKilobytesOrOfASecond() {
        let fast = plan(PreparedResponse(status: 200, body: Data(count: 40_000), bandwidth: .bytesPerSecond(160_000)))
        XCTAssertEqual(fast, [
            .sendHead,
            .wait(.milliseconds(100)), .sendBody(0..<16_000),
            .wait(.milliseconds(100)), .sendBody(16_000..<32_000),
            .wait(.milliseconds(50)), .sendBody(32_000..<40_000),
            .end(close: false),
        ])
        // Slower than 16 KB a second: a second's bytes each second.
        let slow = plan(PreparedResponse(status: 200, body: Data(count: 2_500), bandwidth: .bytesPerSecond(1_000)))
        XCTAssertEqual(slow, [
            .sendHead,
            .wait(.seconds(1)), .sendBody(0..<1_000),
            .wait(.seconds(1)), .sendBody(1_000..<2_000),
            .wait(.milliseconds(500)), .sendBody(2_000..<2_500),
            .end(close: false),
        ])
        let waits = (fast + slow).compactMap { if case .wait(let d) = $0 { return d } else { return nil } }
        XCTAssertTrue(waits.allSatisfy { $0 <= DeliveryPlan.maximumSliceInterval })
    }

    func testTruncationSendsThePrefixThenAborts() {
        XCTAssertEqual(plan(PreparedResponse(status: 200, body: Data(count: 100), truncateAfter: 30)), [.sendHead, .sendBody(0..<30), .abort])
        XCTAssertEqual(plan(PreparedResponse(status: 200, body: Data(count: 100), truncateAfter: 0)), [.sendHead, .abort])
        XCTAssertEqual(plan(PreparedResponse(status: 200, body: Data(count: 100), truncateAfter: 100)), [.sendHead, .sendBody(0..<100), .end(close: true)])
    }

    func testTruncationUnderBandwidthPacesThePrefix() {
        XCTAssertEqual(plan(PreparedResponse(status: 200, body: Data(count: 100), bandwidth: .bytesPerSecond(40), truncateAfter: 50)), [
            .sendHead, .wait(.seconds(1)), .sendBody(0..<40), .wait(.milliseconds(250)), .sendBody(40..<50), .abort,
        ])
    }

    func testBandwidthAndDurationParsing() {
        XCTAssertEqual(Bandwidth(parsing: "3g"), .threeG)
        XCTAssertEqual(Bandwidth(parsing: "EDGE"), .edge)
        XCTAssertEqual(Bandwidth(parsing: "64KB/s")?.bytesPerSecond, 64_000)
        XCTAssertEqual(Bandwidth(parsing: "1.5MB/s")?.bytesPerSecond, 1_500_000)
        XCTAssertEqual(Bandwidth(parsing: "2KiB/s")?.bytesPerSecond, 2_048)
        XCTAssertEqual(Bandwidth(parsing: "100B/s")?.bytesPerSecond, 100)
        XCTAssertNil(Bandwidth(parsing: "fast"))
        XCTAssertNil(Bandwidth(parsing: "-5KB/s"))
        XCTAssertNil(Bandwidth(parsing: "64KB"))
        XCTAssertEqual(Delay.parseDuration("250ms"), .milliseconds(250))
        XCTAssertEqual(Delay.parseDuration("1.5s"), .milliseconds(1_500))
        XCTAssertEqual(Delay.parseDuration("2m"), .seconds(120))
        XCTAssertEqual(Delay.parseDuration("0"), .zero)
        XCTAssertNil(Delay.parseDuration("250"))
        XCTAssertNil(Delay.parseDuration("-1s"))
        XCTAssertNil(Delay.parseDuration("soon"))
    }

    func testDelayDistributionsStayInShape() {
        var generator = SplitMix64(seed: 7)
        let uniform = (0..<1_000).map { _ in Delay.uniform(.milliseconds(100) ... .milliseconds(300)).sample(using: &generator) }
        XCTAssertTrue(uniform.allSatisfy { $0 >= .milliseconds(100) && $0 <= .milliseconds(300) })
        let lognormal = (0..<2_001).map { _ in Delay.lognormal(median: .milliseconds(80), sigma: 0.4).sample(using: &generator) }.sorted()
        let median = lognormal[1_000].milliseconds
        XCTAssertEqual(median, 80, accuracy: 8, "the median of the samples is near the given median")
        XCTAssertGreaterThan(lognormal.last!.milliseconds - 80, 80 - lognormal.first!.milliseconds, "a long right tail")
    }
}
