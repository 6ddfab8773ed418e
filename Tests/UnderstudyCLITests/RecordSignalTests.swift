import Foundation
import UnderstudyHAR
import XCTest

/// SIGINT in the middle of `understudy record`: requests still streaming through it and one
/// held by a slow upstream. The file follows the session while it runs, and the HAR left behind
/// is valid and holds every interaction the client saw complete, once each, with the upstream's
/// bytes.
final class RecordSignalTests: XCTestCase {
    /// What one curl request came to.
    private struct Attempt {
        let path: String
        let exitCode: Int32
        let status: String
        let body: Data
    }

    /// One GET with curl (no retry), its exit code, status and body.
    private static func fetch(_ url: String, maxTime: Int = 10) throws -> (exitCode: Int32, status: String, body: Data) {
        let bodyFile = FileManager.default.temporaryDirectory.appendingPathComponent("record-signal-body-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: bodyFile) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["curl", "--silent", "--max-time", String(maxTime), "--output", bodyFile.path, "--write-out", "%{http_code}", url]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let status = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, status, (try? Data(contentsOf: bodyFile)) ?? Data())
    }

    func testSIGINTMidRecordingLeavesAValidHARWithEveryCompletedInteractionOnce() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("record-signal-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        // The upstream: a PNG, a WebP, 1 MiB of random bytes (long enough to be mid-write when
        // the signal lands) and an answer that takes far longer than the test.
        var generator = SystemRandomNumberGenerator()
        let big = (0..<(1 << 17)).reduce(into: Data(capacity: 1 << 20)) { data, _ in
            withUnsafeBytes(of: generator.next() as UInt64) { data.append(contentsOf: $0) }
        }
        try big.write(to: directory.appendingPathComponent("big.bin"))
        let png = try Data(contentsOf: packageRoot.appendingPathComponent("Stubs/images/photo.png"))
        let webp = try Data(contentsOf: packageRoot.appendingPathComponent("Stubs/images/photo.webp"))
        try png.write(to: directory.appendingPathComponent("photo.png"))
        try webp.write(to: directory.appendingPathComponent("photo.webp"))
        try Data("""
            stubs:
              - { name: png, request: { path: /photo.png }, response: { file: photo.png } }
              - { name: webp, request: { path: /photo.webp }, response: { file: photo.webp } }
              - { name: big, request: { path: /big.bin }, response: { file: big.bin } }
              - { name: slow, request: { path: /slow.png }, response: { file: photo.png, delay: 60s } }
            """.utf8).write(to: directory.appendingPathComponent("upstream.yaml"))
        let bodies = ["/photo.png": png, "/photo.webp": webp, "/big.bin": big]

        let upstream = try startUnderstudy(["serve", directory.appendingPathComponent("upstream.yaml").path, "--port", "0", "--log", "quiet"])
        defer { if upstream.process.isRunning { kill(upstream.process.processIdentifier, SIGKILL) } }
        let upstreamBase = "http://127.0.0.1:\(upstream.port)"
        let output = directory.appendingPathComponent("session.har")
        let recorder = try startUnderstudy(["record", "--upstream", upstreamBase, "--out", output.path, "--port", "0", "--log", "quiet"])
        defer { if recorder.process.isRunning { kill(recorder.process.processIdentifier, SIGKILL) } }
        let base = "http://127.0.0.1:\(recorder.port)"

        // Held by the upstream until the recorder stops.
        let slow = LockedBox<(exitCode: Int32, status: String, body: Data)?>(nil)
        let slowDone = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            slow.set(try? Self.fetch(base + "/slow.png?held=1", maxTime: 90))
            slowDone.signal()
        }

        // Three clients, each a bounded stream of distinct URLs; after the signal each stops at
        // its first failed request.
        let attempts = LockedBox<[Attempt]>([])
        let signalled = LockedBox(false)
        let workers = DispatchGroup()
        for worker in 0..<3 {
            workers.enter()
            Thread.detachNewThread {
                defer { workers.leave() }
                for n in 0..<400 {
                    let path = ["/photo.png", "/photo.webp", "/big.bin"][(n + worker) % 3]
                    let query = "?client=\(worker)&n=\(n)"
                    let wasSignalled = signalled.get()
                    guard let result = try? Self.fetch(base + path + query) else { return }
                    attempts.mutate { $0.append(Attempt(path: path + query, exitCode: result.exitCode, status: result.status, body: result.body)) }
                    if wasSignalled, result.exitCode != 0 { return }
                }
            }
        }

        // SIGINT once a good part of the stream has gone through, while it is still going.
        let deadline = Date().addingTimeInterval(60)
        while attempts.get().count < 24, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.01)
        }
        let beforeSignal = attempts.get()
        XCTAssertGreaterThanOrEqual(beforeSignal.count, 24, "the stream never got going")
        XCTAssertTrue(beforeSignal.allSatisfy { $0.exitCode == 0 && $0.status == "200" }, "failures before the signal: \(beforeSignal.filter { $0.exitCode != 0 })")

        // Flushed as it goes: mid-stream the file already holds what has completed, and every
        // read of it is a whole HAR (each rewrite goes to a temporary file, then is renamed).
        let completedSoFar = attempts.get().filter { $0.exitCode == 0 && $0.status == "200" }.count
        var onDisk = 0
        while onDisk < completedSoFar, Date() < deadline {
            let json = try JSONSerialization.jsonObject(with: Data(contentsOf: output)) as? [String: Any]
            let entries = try XCTUnwrap((json?["log"] as? [String: Any])?["entries"] as? [Any], "a partial HAR on disk")
            onDisk = entries.count
            if onDisk < completedSoFar { Thread.sleep(forTimeInterval: 0.02) }
        }
        XCTAssertGreaterThanOrEqual(onDisk, completedSoFar, "the file did not follow the session")

        signalled.set(true)
        kill(recorder.process.processIdentifier, SIGINT)
        recorder.process.waitUntilExit()
        XCTAssertEqual(recorder.process.terminationReason, .exit)
        XCTAssertEqual(recorder.process.terminationStatus, 0)
        workers.wait()
        slowDone.wait()

        let all = attempts.get()
        let completed = all.filter { $0.exitCode == 0 && $0.status == "200" }
        // The streams went on past the signal and were cut off by it.
        XCTAssertGreaterThan(all.count, beforeSignal.count, "no request was made after the signal")
        XCTAssertLessThan(all.count, 1200, "the recorder kept answering after SIGINT")
        for attempt in completed {
            XCTAssertEqual(attempt.body, bodies[String(attempt.path.prefix { $0 != "?" })], "\(attempt.path): the client saw other bytes")
        }
        XCTAssertNotEqual(slow.get()?.status, "200", "the held request was answered")

        // Python's json reads it...
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = ["python3", "-c", "import json, sys; print('\\n'.join(e['request']['url'] for e in json.load(open(sys.argv[1]))['log']['entries']))", output.path]
        let pythonOut = Pipe()
        python.standardOutput = pythonOut
        try python.run()
        let pythonURLs = String(decoding: pythonOut.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n").map(String.init)
        python.waitUntilExit()
        XCTAssertEqual(python.terminationStatus, 0, "python3 could not read the HAR")

        // ... and so does ours, with the same entries.
        let har = try HARDocument(contentsOf: output)
        let recordedURLs = har.log.entries.map(\.request.url)
        XCTAssertEqual(pythonURLs, recordedURLs)
        XCTAssertEqual(Set(recordedURLs).count, recordedURLs.count, "duplicated entries: \(recordedURLs.count - Set(recordedURLs).count)")

        let recorded = Dictionary(har.log.entries.map { ($0.request.url, $0) }, uniquingKeysWith: { first, _ in first })
        for attempt in completed {
            guard let entry = recorded[upstreamBase + attempt.path] else {
                XCTFail("\(attempt.path) completed for the client but is not in the HAR")
                continue
            }
            XCTAssertEqual(entry.response.status, 200, attempt.path)
            XCTAssertEqual(entry.response.content.data, attempt.body, "\(attempt.path): the HAR holds other bytes")
        }
        // Anything else recorded was a request of the stream the signal cut off on its way
        // back, recorded whole as the upstream sent it; the held request is not there.
        let attemptedURLs = Set(all.map { upstreamBase + $0.path })
        let completedURLs = Set(completed.map { upstreamBase + $0.path })
        for entry in har.log.entries where !completedURLs.contains(entry.request.url) && !entry.request.url.contains("/slow.png") {
            XCTAssertTrue(attemptedURLs.contains(entry.request.url), "\(entry.request.url) was never requested")
            XCTAssertEqual(entry.response.status, 200, entry.request.url)
            let path = URL(string: entry.request.url)?.path ?? ""
            XCTAssertEqual(entry.response.content.data, bodies[path], "\(entry.request.url): the HAR holds other bytes")
        }
        XCTAssertFalse(recordedURLs.contains { $0.contains("/slow.png") }, "the unanswered request was recorded")

        XCTAssertTrue(terminate(upstream.process), "still running 10 s after SIGTERM")
    }
}

/// A value shared by the test's threads.
private final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func get() -> Value {
        lock.withLock { value }
    }

    func set(_ newValue: Value) {
        lock.withLock { value = newValue }
    }

    func mutate(_ change: (inout Value) -> Void) {
        lock.withLock { change(&value) }
    }
}
