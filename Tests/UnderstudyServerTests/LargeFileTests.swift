import Foundation
import Understudy
import UnderstudyServer
import XCTest

/// Bodies of 64 KiB and more read from a file go out with sendfile(2) from the file itself:
/// whole, in part, paced, as HEAD, and after the file changed, a client gets the right bytes.
final class LargeFileTests: XCTestCase {
    func testLargeFilesReachCurlWholeTruncatedPacedAndAfterAnEdit() async throws {
        let directory = try makeTemporaryDirectory("large")
        let file = directory.appendingPathComponent("big.bin")
        let original = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) })
        try original.write(to: file)
        let stubs = StubRegistry()
        stubs.stub(.path("/big.bin"), named: "big", response: .file(file))
        stubs.stub(.path("/cut.bin"), named: "cut", response: .file(file).truncated(after: 100_000))
        stubs.stub(.path("/slow.bin"), named: "slow", response: .file(file).throttled(to: .bytesPerSecond(1_500_000)))

        try await withServer(stubs) { server in
            func url(_ path: String) -> String { server.baseURL.appendingPathComponent(path).absoluteString }
            for _ in 0..<3 {
                let whole = try curl([url("big.bin")])
                XCTAssertEqual(whole.status, 0, whole.stderr)
                XCTAssertEqual(whole.stdout, original, "whole, from the cached open file each time")
            }
            let head = try curl(["--head", url("big.bin")])
            XCTAssertTrue(head.text.contains("Content-Length: 300000"), head.text)

            let cut = try curl([url("cut.bin")])
            XCTAssertEqual(cut.status, 18, "partial file: \(cut.stderr)")
            XCTAssertEqual(cut.stdout, original.prefix(100_000))

            let paced = try curl([url("slow.bin")])
            XCTAssertEqual(paced.stdout, original, "sent in 100 ms slices of the file")

            // Rewritten in place, longer: the next answer is the new file, headers and all.
            let edited = original + Data("and more".utf8)
            try edited.write(to: file, options: [])
            let fresh = try curl(["--include", url("big.bin")])
            XCTAssertTrue(fresh.text.contains("Content-Length: 300008"), String(fresh.text.prefix(300)))
            XCTAssertEqual(fresh.stdout.suffix(edited.count), edited)
        }
        let sent = stubs.journal.interactions.map { "\($0.stubName ?? "-") \($0.bodyBytesSent)" }
        XCTAssertEqual(sent, ["big 300000", "big 300000", "big 300000", "big 0", "cut 100000", "slow 300000", "big 300008"])
    }
}
