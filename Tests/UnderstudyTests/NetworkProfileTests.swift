import Foundation
import Understudy
import UnderstudyImages
import XCTest

/// Network profiles and delivery in pieces as the delivery state machine carries them, without
/// clocks or sockets (SPEC 16).
final class NetworkProfileTests: XCTestCase {
    private func plan(_ response: PreparedResponse, method: String = "GET") -> [DeliveryAction] {
        Array(response.deliveryPlan(method: method))
    }

    private func render(_ response: StubResponse, headers: HeaderFields = [:]) throws -> PreparedResponse {
        let request = StubRequest(method: "GET", url: URL(string: "http://img.example.com/a")!, headers: headers)
        return try XCTUnwrap(try response.renderImmediately(for: request, stubName: "a"))
    }

    /// The times (from the plan's start) at which each body range is sent.
    private func schedule(_ actions: [DeliveryAction]) -> [(time: Double, bytes: Int)] {
        var now = 0.0
        var sends: [(time: Double, bytes: Int)] = []
        for action in actions {
            switch action {
            case .wait(let duration): now += duration.seconds
            case .sendBody(let range): sends.append((now, range.count))
            default: break
            }
        }
        return sends
    }

    func testTheElevenProfilesHaveTheFiguresOfChromeAndFirefox() {
        let figures = NetworkProfile.all.map { "\($0.name!) \($0.latency.milliseconds)ms \($0.rate.bytesPerSecond * 8 / 1_000)kbit/s" }
        XCTAssertEqual(figures, [
            "slow-3g 2000.0ms 400kbit/s", "slow-4g 562.5ms 1440kbit/s", "fast-4g 165.0ms 8100kbit/s",
            "gprs 500.0ms 50kbit/s", "regular-2g 300.0ms 250kbit/s", "good-2g 150.0ms 450kbit/s", "regular-3g 100.0ms 750kbit/s",
            "good-3g 40.0ms 1500kbit/s", "regular-4g 20.0ms 4000kbit/s", "dsl 5.0ms 2000kbit/s", "wifi 2.0ms 30000kbit/s",
        ])
        XCTAssertEqual(NetworkProfile.named("Slow-3G"), .slow3G)
        XCTAssertNil(NetworkProfile.named("5g"))
        XCTAssertEqual(NetworkProfile.slow3G.description, "slow-3g (2s, 400kbit/s)")
        XCTAssertEqual(NetworkProfile.custom(latency: .milliseconds(300), rate: .kilobitsPerSecond(800)).description, "custom (300ms, 800kbit/s)")
    }

    func testBandwidthPresetsAreTheProfilesRates() throws {
        XCTAssertEqual(Bandwidth.gprs, NetworkProfile.gprs.rate)
        XCTAssertEqual(Bandwidth.edge, NetworkProfile.regular2G.rate)
        XCTAssertEqual(Bandwidth.threeG, NetworkProfile.regular3G.rate)
        XCTAssertEqual(Bandwidth.fourG, NetworkProfile.regular4G.rate)
        XCTAssertEqual(Bandwidth.wifi, NetworkProfile.wifi.rate)
        XCTAssertEqual(
            [Bandwidth.gprs, .edge, .threeG, .fourG, .wifi].map(\.bytesPerSecond), [6_250, 31_250, 93_750, 500_000, 3_750_000]
        )
        for profile in NetworkProfile.all {
            let name = try XCTUnwrap(profile.name)
            XCTAssertEqual(Bandwidth(parsing: name), profile.rate, "bandwidth: \(name)")
            XCTAssertEqual(Bandwidth(parsing: name.uppercased()), profile.rate, "bandwidth: \(name.uppercased())")
        }
        XCTAssertEqual(Bandwidth(parsing: "slow-3g")?.bytesPerSecond, 50_000)
        XCTAssertEqual(Bandwidth(parsing: "4g"), .fourG)
        XCTAssertEqual(Bandwidth.presetNames, NetworkProfile.names + ["edge", "3g", "4g"])
        XCTAssertTrue(Bandwidth.presetNames.allSatisfy { Bandwidth(parsing: $0) != nil })
    }

    func testRatesAreWrittenInBitsToo() {
        XCTAssertEqual(Bandwidth(parsing: "800kbit/s")?.bytesPerSecond, 100_000)
        XCTAssertEqual(Bandwidth(parsing: "1.5Mbit/s")?.bytesPerSecond, 187_500)
        XCTAssertEqual(Bandwidth(parsing: "64KB/s")?.bytesPerSecond, 64_000)
        XCTAssertNil(Bandwidth(parsing: "800kbit"))
    }

    func testAProfileWaitsItsLatencyBeforeTheHeadThenPacesTheBodyAtItsRate() throws {
        let actions = plan(try render(.data(Data(count: 40_000)).network(.slow3G)))
        // 400 kbit/s is 50,000 B/s: slices of 16,000 bytes every 320 ms.
        XCTAssertEqual(actions, [
            .wait(.seconds(2)), .sendHead,
            .wait(.milliseconds(320)), .sendBody(0..<16_000),
            .wait(.milliseconds(320)), .sendBody(16_000..<32_000),
            .wait(.milliseconds(160)), .sendBody(32_000..<40_000),
            .end(close: false),
        ])
        // A profile slower than 16 KB/s sends a second's bytes a second.
        let gprs = plan(try render(.data(Data(count: 10_000)).network(.gprs)))
        XCTAssertEqual(Array(gprs.dropFirst(2)), [
            .wait(.seconds(1)), .sendBody(0..<6_250), .wait(.milliseconds(600)), .sendBody(6_250..<10_000), .end(close: false),
        ])
        // A stub's own bandwidth wins over the profile's rate, paced in the same slices.
        let own = plan(try render(.data(Data(count: 2_000)).network(.slow3G).throttled(to: .bytesPerSecond(1_000))))
        XCTAssertEqual(Array(own.dropFirst(2)), [
            .wait(.seconds(1)), .sendBody(0..<1_000), .wait(.seconds(1)), .sendBody(1_000..<2_000), .end(close: false),
        ])
        // The same rate as a stub's `bandwidth` or a profile's: the same slices.
        let throttled = plan(try render(.data(Data(count: 10_000)).throttled(to: .gprs)))
        XCTAssertEqual(Array(throttled.dropFirst(1)), Array(gprs.dropFirst(2)), "bandwidth: gprs as network: gprs, but for the latency")
    }

    func testNoSecondOfAFastProfileCarriesMoreThanItsRatePlusOneSixteenKilobyteSlice() throws {
        let rate = NetworkProfile.wifi.rate.bytesPerSecond
        let actions = plan(try render(.data(Data(count: 3 * rate)).network(.wifi)))
        let sends = schedule(actions)
        XCTAssertEqual(sends.map(\.bytes).max(), DeliveryPlan.maximumSliceSize, "slices are at most 16 KB, not a tenth of the rate")
        XCTAssertEqual(sends.reduce(0) { $0 + $1.bytes }, 3 * rate)
        XCTAssertEqual(sends.last!.time, 3.0 + 0.002, accuracy: 0.001, "3 s of body after 2 ms of latency")
        for (index, start) in sends.enumerated() {
            let window = sends[index...].prefix { $0.time < start.time + 1 }.reduce(0) { $0 + $1.bytes }
            XCTAssertLessThanOrEqual(window, rate + DeliveryPlan.maximumSliceSize, "the second from \(start.time) s")
        }
    }

    func testAStubsOwnDelayAndBandwidthWinOverItsProfile() throws {
        let own = try render(.data(Data(count: 10)).network(.slow3G).delayed(by: .milliseconds(10)).throttled(to: .edge))
        XCTAssertEqual(own.delay, .milliseconds(10))
        XCTAssertEqual(own.bandwidth, .edge)
        XCTAssertEqual(own.network, .slow3G, "the journal still names the profile")
        let latencyOnly = try render(.data(Data(count: 10)).network(.slow3G).throttled(to: .edge))
        XCTAssertEqual(latencyOnly.delay, .seconds(2))
        XCTAssertEqual(latencyOnly.bandwidth, .edge)
    }

    func testAStubsProfileWinsOverTheTransportsAndATransportsProfileFillsOnlyWhatTheStubLeft() throws {
        let stubProfile = try render(.data(Data(count: 10)).network(.dsl)).delivered(on: .slow3G)
        XCTAssertEqual(stubProfile.network, .dsl)
        XCTAssertEqual(stubProfile.delay, .milliseconds(5))

        let withDelay = try render(.data(Data(count: 10)).delayed(by: .milliseconds(7))).delivered(on: .slow3G)
        XCTAssertEqual(withDelay.network, .slow3G)
        XCTAssertEqual(withDelay.delay, .milliseconds(7), "the stub's own delay wins")
        XCTAssertEqual(withDelay.bandwidth, NetworkProfile.slow3G.rate)

        let plain = try render(.data(Data(count: 10))).delivered(on: nil)
        XCTAssertNil(plain.network)
        XCTAssertEqual(plain.delay, .zero)
        XCTAssertNil(plain.bandwidth)
    }

    func testTheTransportsNetworkSettingPutsTheRunTimeProfileOverTheBase() {
        let setting = NetworkSetting(base: .dsl)
        XCTAssertEqual(setting.current, .dsl)
        setting.runtime = .slow3G
        XCTAssertEqual(setting.current, .slow3G)
        setting.runtime = nil
        XCTAssertEqual(setting.current, .dsl)
    }

    // MARK: - Pieces

    func testPiecesAreCutAtTheirOffsetsWithTheIntervalBetween() throws {
        let prepared = try render(.data(Data(count: 5_000)).inPieces(.at([3_000, 1_000, 9_000, 0]), interval: .milliseconds(200)))
        XCTAssertEqual(plan(prepared), [
            .sendHead, .sendBody(0..<1_000), .wait(.milliseconds(200)), .sendBody(1_000..<3_000), .wait(.milliseconds(200)),
            .sendBody(3_000..<5_000), .end(close: false),
        ], "offsets sorted, those outside the body dropped")
        XCTAssertEqual(plan(prepared, method: "HEAD"), [.sendHead, .end(close: false)])
    }

    func testPiecesUnderARateArePacedWithinEachPiece() throws {
        let prepared = try render(.data(Data(count: 3_000)).inPieces(.at([1_500]), interval: .seconds(1)).throttled(to: .bytesPerSecond(1_000)))
        XCTAssertEqual(plan(prepared), [
            .sendHead, .wait(.seconds(1)), .sendBody(0..<1_000), .wait(.milliseconds(500)), .sendBody(1_000..<1_500),
            .wait(.seconds(1)), .wait(.seconds(1)), .sendBody(1_500..<2_500), .wait(.milliseconds(500)), .sendBody(2_500..<3_000),
            .end(close: false),
        ])
    }

    func testARangeIsCutWhereTheWholeBodyIsCutAndA304HasNoPieces() throws {
        let body = Data((0..<5_000).map { UInt8(truncatingIfNeeded: $0) })
        let prepared = try render(.data(body).inPieces(.at([1_000, 3_000]), interval: .milliseconds(100)))
        let request = StubRequest(method: "GET", url: URL(string: "http://img.example.com/a")!, headers: ["Range": "bytes=2000-3999"])
        let ranged = ConditionalRequest.answer(request, with: prepared)
        XCTAssertEqual(ranged.status, 206)
        XCTAssertEqual(ranged.body, body[2_000..<4_000])
        XCTAssertEqual(plan(ranged), [.sendHead, .sendBody(0..<1_000), .wait(.milliseconds(100)), .sendBody(1_000..<2_000), .end(close: false)])

        let etag = try XCTUnwrap(prepared.headers["ETag"])
        let revalidation = StubRequest(method: "GET", url: URL(string: "http://img.example.com/a")!, headers: ["If-None-Match": etag])
        let notModified = ConditionalRequest.answer(revalidation, with: prepared)
        XCTAssertEqual(notModified.status, 304)
        XCTAssertEqual(plan(notModified), [.sendHead, .end(close: false)])
    }

    func testScansAreCutAtEachStartOfScanButTheFirst() throws {
        let jpeg = try ImageTranscoder().renderSync(.generated(width: 64, height: 48, pattern: .photo), as: .jpegProgressive(quality: 80))
        let sos = Self.offsets(of: [0xFF, 0xDA], in: jpeg)
        XCTAssertGreaterThan(sos.count, 3, "a progressive JPEG has several scans")
        XCTAssertEqual(ImageBoundaries.jpegScanStarts(jpeg), sos)
        let prepared = try render(.data(jpeg).inPieces(.scans, interval: .milliseconds(50)))
        XCTAssertEqual(prepared.pieces?.offsets, Array(sos.dropFirst()))
        let sent = plan(prepared).compactMap { if case .sendBody(let range) = $0 { return range } else { return nil } }
        XCTAssertEqual(sent.count, sos.count, "one piece per scan")
        XCTAssertEqual(sent.map(\.upperBound), Array(sos.dropFirst()) + [jpeg.count])

        let baseline = try ImageTranscoder().renderSync(.generated(width: 64, height: 48, pattern: .photo), as: .jpeg(quality: 80))
        XCTAssertEqual(try render(.data(baseline).inPieces(.scans, interval: .milliseconds(50))).pieces?.offsets, [], "a baseline JPEG is one scan")
    }

    func testFramesOfAnAnimatedWebPAreCutAfterEachANMFChunk() throws {
        let webp = try ImageTranscoder().renderSync(
            .animated(width: 32, height: 24, pattern: .checkerboard, frames: 5, frameDuration: .milliseconds(100)), as: .webp(quality: 80)
        )
        let anmf = Self.offsets(of: Array("ANMF".utf8), in: webp)
        XCTAssertEqual(anmf.count, 5)
        let ends = try XCTUnwrap(ImageBoundaries.frameEnds(webp))
        XCTAssertEqual(ends.count, 5)
        // Each frame ends where the next ANMF chunk begins.
        XCTAssertEqual(Array(ends.dropLast()), Array(anmf.dropFirst()))
        let prepared = try render(.data(webp).inPieces(.frames, interval: .milliseconds(50)))
        XCTAssertEqual(prepared.pieces?.offsets.count, 4, "five frames, five pieces")
    }

    func testFramesOfAnAnimatedGIFAreCutAfterEachImage() throws {
        let gif = Self.twoFrameGIF
        XCTAssertEqual(ImageBoundaries.frameEnds(gif), [Self.firstFrameEnd, gif.count - 1])
        XCTAssertEqual(try render(.data(gif).inPieces(.frames, interval: .milliseconds(10))).pieces?.offsets, [Self.firstFrameEnd])
    }

    func testACutThatDoesNotFitTheBodyIsAnErrorSayingWhy() throws {
        let png = try ImageTranscoder().renderSync(.generated(width: 8, height: 8, pattern: .checkerboard), as: .png)
        let request = StubRequest(method: "GET", url: URL(string: "http://img.example.com/a")!)
        XCTAssertThrowsError(try StubResponse.data(png).inPieces(.scans, interval: .zero).renderImmediately(for: request, stubName: "a")) {
            XCTAssertEqual("\($0)", "pieces by scans needs a JPEG body; this body (\(png.count) bytes) is png")
        }
        XCTAssertThrowsError(try StubResponse.data(png).inPieces(.frames, interval: .zero).renderImmediately(for: request, stubName: "a")) {
            XCTAssertEqual("\($0)", "pieces by frames needs an animated avif, gif or webp body; this body (\(png.count) bytes) is png")
        }
    }

    // MARK: - Helpers

    static func offsets(of pattern: [UInt8], in data: Data) -> [Int] {
        let bytes = [UInt8](data)
        guard bytes.count >= pattern.count else { return [] }
        return (0...(bytes.count - pattern.count)).filter { Array(bytes[$0..<$0 + pattern.count]) == pattern }
    }

    /// A 1x1 GIF89a with two frames, each a graphic control extension and an image.
    static let twoFrameGIF: Data = {
        var bytes: [UInt8] = Array("GIF89a".utf8) + [1, 0, 1, 0, 0x80, 0, 0] + [0, 0, 0, 255, 255, 255]
        let frame: [UInt8] = [0x21, 0xF9, 4, 0, 10, 0, 0, 0] + [0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0] + [2, 2, 0x44, 0x01, 0]
        bytes += frame + frame + [0x3B]
        return Data(bytes)
    }()
    static let firstFrameEnd = 19 + 23
}
