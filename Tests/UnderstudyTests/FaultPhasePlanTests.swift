import Foundation
import Understudy
import UnderstudyImages
import XCTest

/// Faults by phase, jitter, split delays, 1xx heads and chance, as delivery-plan steps and
/// draws: without clocks or sockets.
final class FaultPhasePlanTests: XCTestCase {
    private func plan(_ response: PreparedResponse, method: String = "GET", requestBody: Int = 0) -> [DeliveryAction] {
        Array(response.deliveryPlan(method: method, requestBodyBytes: requestBody))
    }

    private func response(_ fault: Fault?, body: Int = 10) -> PreparedResponse {
        PreparedResponse(status: 200, body: Data(count: body), fault: fault)
    }

    func testDisconnectAfterRequestDropsBeforeAnyByte() {
        XCTAssertEqual(plan(response(.disconnectAfterRequest)), [.drop(reset: false)])
        var delayed = response(.disconnectAfterRequest)
        delayed.delay = .milliseconds(200)
        XCTAssertEqual(plan(delayed), [.wait(.milliseconds(200)), .drop(reset: false)])
    }

    func testDisconnectDuringRequestBodyStrikesOnlyALongerBody() {
        XCTAssertEqual(plan(response(.disconnectDuringRequestBody(after: 100)), method: "POST", requestBody: 101), [.drop(reset: true)])
        XCTAssertEqual(plan(response(.disconnectDuringRequestBody(after: 100)), method: "POST", requestBody: 100),
                       [.sendHead, .sendBody(0..<10), .end(close: false)])
    }

    func testResponseBodyFaultsSendHeadAndThePrefixThenDropOrReset() {
        XCTAssertEqual(plan(response(.disconnectDuringResponseBody(after: 4))), [.sendHead, .sendBody(0..<4), .drop(reset: false)])
        XCTAssertEqual(plan(response(.resetDuringResponseBody(after: 4))), [.sendHead, .sendBody(0..<4), .drop(reset: true)])
        XCTAssertEqual(plan(response(.resetDuringResponseBody(after: 0))), [.sendHead, .drop(reset: true)])
        // Past the body's end: the whole body, then the break all the same.
        XCTAssertEqual(plan(response(.disconnectDuringResponseBody(after: 50))), [.sendHead, .sendBody(0..<10), .drop(reset: false)])
    }

    func testAResponseBodyFaultCutsAPacedBodyWhereItSays() {
        var paced = response(.resetDuringResponseBody(after: 1_500), body: 2_500)
        paced.bandwidth = .bytesPerSecond(1_000)
        XCTAssertEqual(plan(paced), [
            .sendHead, .wait(.seconds(1)), .sendBody(0..<1_000), .wait(.milliseconds(500)), .sendBody(1_000..<1_500), .drop(reset: true),
        ])
    }

    func testEndOfConnectionFaultsFollowAWholeAnswer() {
        XCTAssertEqual(plan(response(.shutdownInputAtEnd)), [.sendHead, .sendBody(0..<10), .endConnection(.shutdownInput)])
        XCTAssertEqual(plan(response(.shutdownOutputAtEnd)), [.sendHead, .sendBody(0..<10), .endConnection(.shutdownOutput)])
        XCTAssertEqual(plan(response(.slowClose(.seconds(2)))), [.sendHead, .sendBody(0..<10), .endConnection(.slowClose(.seconds(2)))])
        XCTAssertTrue(response(.slowClose(.seconds(2))).deliveryPlan(method: "GET").announcesClose)
        XCTAssertFalse(response(.shutdownOutputAtEnd).deliveryPlan(method: "GET").announcesClose)
    }

    func testTimeoutSendsNothingAndClosesAfterItsTime() {
        XCTAssertEqual(plan(response(.timeout(after: .seconds(5)))), [.wait(.seconds(5)), .drop(reset: false)])
    }

    func testLimitDataIsSetBeforeTheAnswer() {
        XCTAssertEqual(plan(response(.limitData(64))), [.limitData(64), .sendHead, .sendBody(0..<10), .end(close: false)])
    }

    func testFaultsThatReplaceTheAnswerStayAsTheyWere() {
        for fault in [Fault.connectionReset, .emptyResponse, .malformedChunk, .randomDataThenClose, .noResponse, .goaway] {
            XCTAssertEqual(plan(response(fault)), [.fail(fault)], "\(fault)")
        }
    }

    func testInformationalHeadsGoFirstThenTheDelayAndTheFinalHead() {
        var early = response(nil)
        early.delay = .milliseconds(300)
        early.informational = [InformationalHead(status: 103, headers: ["Link": "</hero.avif>; rel=preload; as=image"])]
        XCTAssertEqual(plan(early), [.sendInformational(0), .wait(.milliseconds(300)), .sendHead, .sendBody(0..<10), .end(close: false)])
    }

    func testBodyDelayWaitsBetweenHeadAndBody() {
        var split = response(nil)
        split.delay = .milliseconds(100)
        split.bodyDelay = .milliseconds(200)
        XCTAssertEqual(plan(split), [.wait(.milliseconds(100)), .sendHead, .wait(.milliseconds(200)), .sendBody(0..<10), .end(close: false)])
        // Nothing to delay for HEAD.
        XCTAssertEqual(plan(split, method: "HEAD"), [.wait(.milliseconds(100)), .sendHead, .end(close: false)])
    }

    func testJitterStaysWithinItsRange() {
        var generator = SplitMix64(seed: 7)
        let delay = Delay.jittered(.milliseconds(200), by: .milliseconds(50))
        let samples = (0..<1_000).map { _ in delay.sample(using: &generator).milliseconds }
        XCTAssertTrue(samples.allSatisfy { (150...250).contains($0) }, "\(samples.min()!)...\(samples.max()!)")
        XCTAssertLessThan(samples.min()!, 160)
        XCTAssertGreaterThan(samples.max()!, 240)
        XCTAssertEqual(Delay.jittered(.milliseconds(20), by: .milliseconds(50)), .uniform(.zero...(.milliseconds(70))))
    }

    func testChanceDrawsTheSameForTheSameSeedAndAShareNearItsChance() {
        var chancy = response(nil)
        var chances = ResponseChances()
        chances.fault = .init(.disconnectAfterRequest, chance: 0.3)
        chancy.chances = chances
        func failures(seed: UInt64) -> [Int] {
            var generator = SplitMix64(seed: seed)
            return (0..<1_000).filter { _ in chancy.drawing(using: &generator).fault != nil }
        }
        let first = failures(seed: 42)
        XCTAssertEqual(first, failures(seed: 42))
        XCTAssertTrue((250...350).contains(first.count), "\(first.count) of 1,000")
        XCTAssertNotEqual(first, failures(seed: 43))
    }

    func testDrawnPartsAreMarkedAndAStatusDrawnForgetsTheRendering() {
        var chancy = response(nil)
        chancy.renderID = 9
        var chances = ResponseChances()
        chances.status = .init(503, chance: 1)
        chances.delay = .init(.fixed(.milliseconds(10)), chance: 1)
        chancy.chances = chances
        var generator = SplitMix64(seed: 1)
        let drawn = chancy.drawing(using: &generator)
        XCTAssertEqual(drawn.status, 503)
        XCTAssertNil(drawn.renderID)
        XCTAssertEqual(drawn.delay, .milliseconds(10))
        XCTAssertNil(drawn.chances)
        // A chance of 1 is no chance: only parts below 1 are marked.
        XCTAssertEqual(drawn.drawn, [])
    }
}

