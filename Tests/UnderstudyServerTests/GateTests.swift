import Foundation
import Understudy
import UnderstudyServer
import XCTest
import UnderstudyTestSupport

/// Gates over the wire: a progressive JPEG held at the end of its first scan while a raw socket
/// reads exactly that many bytes, released through the admin API; a client killed while held
/// is journaled `cancelled` with its byte count, and so is a held request when the server stops.
final class GateTests: XCTestCase {
    private var python: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".venv/bin/python").path
    }

    /// A progressive JPEG made by Pillow, and where its second scan starts: the bytes before it
    /// are the header and the first scan, all a decoder needs to show a first, coarse image.
    private func progressiveJPEG() throws -> (data: Data, firstScanEnd: Int) {
        let file = try makeTemporaryDirectory("gate").appendingPathComponent("progressive.jpg")
        let script = """
        import sys
        from PIL import Image
        image = Image.linear_gradient("L").resize((320, 240)).convert("RGB")
        image.save(sys.argv[1], "JPEG", quality=90, progressive=True)
        """
        let made = try UnderstudyServerTests.run(python, ["-c", script, file.path])
        XCTAssertEqual(made.status, 0, "\(made.stderr) (no Pillow? run `make test-deps`)")
        let data = try Data(contentsOf: file)
        // Start-of-scan markers (FF DA): entropy-coded data stuffs every FF, so these are markers.
        let scans = data.indices.dropLast().filter { data[$0] == 0xFF && data[$0 + 1] == 0xDA }
        XCTAssertGreaterThan(scans.count, 2, "a progressive JPEG has several scans")
        return (data, scans[1])
    }

    func testAGateHoldsAProgressiveJPEGAtItsFirstScanUntilReleasedOverTheAdminAPI() async throws {
        let (jpeg, firstScanEnd) = try progressiveJPEG()
        let stubs = StubRegistry()
        stubs.stub(.path("/photo.jpg"), named: "progressive", response: .data(jpeg, contentType: "image/jpeg").paused(afterBytes: firstScanEnd, gate: "first-scan"))
        try await withServer(stubs) { server in
            let socket = try RawSocket(port: server.port)
            socket.send("GET /photo.jpg HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            try await stubs.gate("first-scan").reached(count: 1)
            let head = try XCTUnwrap(socket.readHead())
            XCTAssertTrue(head.hasPrefix("HTTP/1.1 200 OK\r\n") && head.contains("Content-Length: \(jpeg.count)\r\n"), head)
            let firstScan = socket.readBytes(firstScanEnd)
            XCTAssertEqual(firstScan, jpeg.prefix(firstScanEnd))
            XCTAssertFalse(socket.hasBytes(within: 0.3), "nothing more until the gate opens")

            // A decoder makes a whole (coarse) image of what arrived.
            let partial = try makeTemporaryDirectory("gate-partial").appendingPathComponent("first-scan.jpg")
            try firstScan.write(to: partial)
            let decoded = try UnderstudyServerTests.run(python, ["-c", """
            import sys
            from PIL import Image, ImageFile
            ImageFile.LOAD_TRUNCATED_IMAGES = True
            image = Image.open(sys.argv[1]); image.load()
            print(image.size, image.info.get("progressive"), image.getpixel((160, 10))[0] < 60, image.getpixel((160, 230))[0] > 190)
            """, partial.path])
            XCTAssertEqual(decoded.text, "(320, 240) 1 True True\n", decoded.stderr)

            // Held: in flight in the journal, listed by the admin API, counted by health.
            XCTAssertEqual(stubs.journal.interactions.map(\.outcome), [.inFlight])
            let gates = try curl([server.baseURL.absoluteString + "/__admin/gates"])
            XCTAssertEqual(gates.text, #"{"gates":[{"bytesSent":\#(firstScanEnd),"name":"first-scan","open":false,"reached":1,"waiting":1}]}"# + "\n")
            let health = try JSONSerialization.jsonObject(with: try curl([server.baseURL.absoluteString + "/__admin/health"]).stdout) as? [String: Any]
            XCTAssertEqual(health?["inFlight"] as? Int, 1)
            XCTAssertGreaterThanOrEqual(health?["connections"] as? Int ?? 0, 2, "the raw socket and curl's own")

            let released = try curl(["-X", "POST", server.baseURL.absoluteString + "/__admin/gates/first-scan/release"])
            XCTAssertEqual(released.text, #"{"bytesSent":0,"name":"first-scan","open":true,"reached":1,"waiting":0}"# + "\n")
            XCTAssertEqual(socket.readBytes(jpeg.count - firstScanEnd), jpeg.suffix(from: firstScanEnd))
            try await waitUntil { stubs.journal.interactions.first?.outcome == .completed }
            XCTAssertEqual(stubs.journal.interactions.first?.bodyBytesSent, jpeg.count)

            // Open now: the next body passes; closed again: held again.
            let passes = try curl([server.baseURL.absoluteString + "/photo.jpg"])
            XCTAssertEqual(passes.stdout, jpeg)
            _ = try curl(["-X", "POST", server.baseURL.absoluteString + "/__admin/gates/first-scan/close"])
            XCTAssertFalse(stubs.gate("first-scan").isOpen)
        }
    }

    func testAClientKilledWhileHeldIsJournaledCancelledWithItsBytes() async throws {
        let stubs = StubRegistry()
        let body = Data(count: 50_000)
        stubs.stub(.path("/held"), named: "held", response: .data(body).paused(afterBytes: 12_345, gate: "g"))
        try await withServer(stubs) { server in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["curl", "--silent", "--max-time", "20", "-o", "/dev/null", server.baseURL.absoluteString + "/held"]
            try process.run()
            try await stubs.gate("g").reached(count: 1)
            XCTAssertEqual(stubs.journal.inFlightCount, 1)
            // SIGKILL: a child spawned from a Dispatch thread ignores SIGTERM.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            XCTAssertEqual(process.terminationReason, .uncaughtSignal)
            try await waitUntil { stubs.journal.interactions.first?.outcome == .cancelled }
            let entry = try XCTUnwrap(stubs.journal.interactions.first)
            XCTAssertEqual(entry.bodyBytesSent, 12_345)
            XCTAssertEqual(entry.status, 200)
            XCTAssertEqual(stubs.gate("g").waitingCount, 0, "the cancelled body left the gate")
            XCTAssertEqual(stubs.journal.inFlightCount, 0)
        }
    }

    func testAHeldRequestShowsTheHTTPVersionItCameOverWhileInFlight() async throws {
        let stubs = StubRegistry()
        stubs.stub(.path("/held"), named: "held", response: .data(Data(count: 5_000)).paused(afterBytes: 1_000, gate: "g"))
        try await withServer(stubs) { server in
            for (index, (flag, version)) in [("--http2-prior-knowledge", Interaction.HTTPVersion.http2), ("--http1.1", .http1_1)].enumerated() {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
                process.arguments = ["curl", "--silent", flag, "--max-time", "20", "-o", "/dev/null", server.baseURL.absoluteString + "/held"]
                try process.run()
                try await stubs.gate("g").reached(count: index + 1)
                let held = try XCTUnwrap(stubs.journal.interactions.last)
                XCTAssertEqual(held.outcome, .inFlight)
                XCTAssertEqual(held.httpVersion, version, "in flight, held at the gate")
                stubs.gate("g").release()
                process.waitUntilExit()
                XCTAssertEqual(process.terminationStatus, 0)
                try await waitUntil { stubs.journal.interactions.last?.outcome == .completed }
                XCTAssertEqual(stubs.journal.interactions.last?.httpVersion, version, "and once answered")
                stubs.gate("g").close()
                stubs.journal.clear()
            }
        }
    }

    func testStoppingTheServerEndsAHeldRequestAsCancelled() async throws {
        let stubs = StubRegistry()
        stubs.stub(.path("/held"), named: "held", response: .data(Data(count: 1_000)).paused(afterBytes: 0, gate: "g"))
        let server = try await StubServer.start(serving: stubs)
        let socket = try RawSocket(port: server.port)
        socket.send("GET /held HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        try await stubs.gate("g").reached(count: 1)
        try await server.stop()
        try await waitUntil { stubs.journal.interactions.first?.outcome == .cancelled }
        XCTAssertEqual(stubs.journal.interactions.first?.bodyBytesSent, 0)
        XCTAssertEqual(stubs.journal.interactions.first?.status, 200, "the head went out before the pause")
        withExtendedLifetime(socket) {}
    }
}

/// Polls `condition` every 10 ms for up to 5 s.
func waitUntil(_ condition: () -> Bool, file: StaticString = #filePath, line: UInt = #line) async throws {
    for _ in 0..<500 {
        if condition() { return }
        try await Task.sleep(for: .milliseconds(10))
    }
    XCTFail("condition not met within 5 s", file: file, line: line)
}

extension RawSocket {
    /// Reads the status line and headers, byte by byte so no body byte is taken.
    func readHead() -> String? {
        var head = Data()
        var byte: UInt8 = 0
        while !head.ends(with: Data("\r\n\r\n".utf8)) {
            guard recv(fd, &byte, 1, 0) == 1 else { return nil }
            head.append(byte)
        }
        return String(decoding: head, as: UTF8.self)
    }

    /// Reads exactly `count` bytes (fewer if the peer closes or 5 s pass).
    func readBytes(_ count: Int) -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while data.count < count {
            let received = recv(fd, &buffer, min(buffer.count, count - data.count), 0)
            if received <= 0 { break }
            data.append(buffer, count: received)
        }
        return data
    }

    /// Whether anything arrives within `seconds`.
    func hasBytes(within seconds: Double) -> Bool {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, Int32(seconds * 1000)) > 0
    }
}

extension Data {
    fileprivate func ends(with suffix: Data) -> Bool {
        count >= suffix.count && self.suffix(suffix.count) == suffix
    }
}
