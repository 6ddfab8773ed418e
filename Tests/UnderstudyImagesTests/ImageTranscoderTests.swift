import Foundation
import UnderstudyImages
import XCTest

final class ImageTranscoderTests: XCTestCase {
    private func webp(seed: UInt64, width: Int = 48, height: Int = 32) throws -> Data {
        try ImageGenerator.photoLike(width: width, height: height, seed: seed).webPData(quality: 80)
    }

    func testTranscodesWebPToPNG() async throws {
        let source = try webp(seed: 1)
        let png = try await ImageTranscoder().transcode(source, to: .png)
        XCTAssertEqual(ImageKind.detect(png), .png)
        XCTAssertEqual(try RGBAImage(decoding: png), try RGBAImage(decoding: source))
    }

    func testSecondIdenticalTranscodeDoesNoCodecWork() async throws {
        let transcoder = ImageTranscoder()
        let source = try webp(seed: 2)
        let first = try await transcoder.transcode(source, to: .png)
        let afterFirst = transcoder.statistics
        XCTAssertEqual(afterFirst.decodes, 1)
        XCTAssertEqual(afterFirst.encodes, 1)
        XCTAssertEqual(afterFirst.misses, 1)
        XCTAssertEqual(afterFirst.bytesCached, first.count)

        let second = try await transcoder.transcode(source, to: .png)
        XCTAssertEqual(second, first)
        let afterSecond = transcoder.statistics
        XCTAssertEqual(afterSecond.codecCalls, afterFirst.codecCalls)
        XCTAssertEqual(afterSecond.hits, 1)
        XCTAssertEqual(afterSecond.misses, 1)

        // The same bytes from another Data value are the same key (it is a digest).
        _ = try await transcoder.transcode(Data([UInt8](source)), to: .png)
        XCTAssertEqual(transcoder.statistics.codecCalls, afterFirst.codecCalls)

        // The sync API shares the cache.
        XCTAssertEqual(try transcoder.transcodeSync(source, to: .png), first)
        XCTAssertEqual(transcoder.statistics.hits, 3)
        XCTAssertEqual(transcoder.statistics.codecCalls, 2)
    }

    func testTargetAndOptionsArePartOfTheKey() async throws {
        let transcoder = ImageTranscoder()
        let source = try webp(seed: 3)
        _ = try await transcoder.transcode(source, to: .png)
        _ = try await transcoder.transcode(source, to: .webp(quality: 50))
        _ = try await transcoder.transcode(source, to: .webp(quality: 90))
        _ = try await transcoder.transcode(source, to: .webpLossless)
        XCTAssertEqual(transcoder.statistics.misses, 4)
        XCTAssertEqual(transcoder.statistics.entryCount, 4)
        // Out-of-range qualities clamp to the same encoding, so they share an entry.
        _ = try await transcoder.transcode(source, to: .webp(quality: 100))
        _ = try await transcoder.transcode(source, to: .webp(quality: 250))
        XCTAssertEqual(transcoder.statistics.misses, 5)
        XCTAssertEqual(transcoder.statistics.hits, 1)
    }

    func testConcurrentIdenticalRequestsDoTheWorkOnce() async throws {
        let transcoder = ImageTranscoder()
        let source = try webp(seed: 4, width: 400, height: 300)
        let results = try await withThrowingTaskGroup(of: Data.self) { group in
            for _ in 0..<20 {
                group.addTask { try await transcoder.transcode(source, to: .png) }
            }
            return try await group.reduce(into: [Data]()) { $0.append($1) }
        }
        XCTAssertEqual(results.count, 20)
        XCTAssertEqual(Set(results).count, 1)
        let statistics = transcoder.statistics
        XCTAssertEqual(statistics.decodes, 1)
        XCTAssertEqual(statistics.encodes, 1)
        XCTAssertEqual(statistics.misses, 1)
        XCTAssertEqual(statistics.hits + statistics.coalesced, 19)
    }

    func testLeastRecentlyUsedEntriesAreEvictedByBytes() async throws {
        let sources = [try webp(seed: 10), try webp(seed: 11), try webp(seed: 12)]
        // Measure the outputs, then allow room for exactly two of them.
        let sizes = try sources.map { try ImageTranscoder(capacity: 0).transcodeSync($0, to: .png).count }
        let capacity = sizes[0] + sizes[1] + min(sizes[2], sizes[0]) - 1
        let transcoder = ImageTranscoder(capacity: capacity)

        _ = try await transcoder.transcode(sources[0], to: .png)
        _ = try await transcoder.transcode(sources[1], to: .png)
        XCTAssertEqual(transcoder.statistics.bytesCached, sizes[0] + sizes[1])
        _ = try await transcoder.transcode(sources[0], to: .png)   // 0 is now the most recent
        XCTAssertEqual(transcoder.statistics.hits, 1)

        _ = try await transcoder.transcode(sources[2], to: .png)   // evicts 1, the least recent
        var statistics = transcoder.statistics
        XCTAssertEqual(statistics.evictions, 1)
        XCTAssertEqual(statistics.entryCount, 2)
        XCTAssertEqual(statistics.bytesCached, sizes[0] + sizes[2])
        XCTAssertLessThanOrEqual(statistics.bytesCached, capacity)

        let codecCalls = statistics.codecCalls
        _ = try await transcoder.transcode(sources[0], to: .png)   // still cached
        XCTAssertEqual(transcoder.statistics.codecCalls, codecCalls)
        _ = try await transcoder.transcode(sources[1], to: .png)   // evicted: decoded again
        statistics = transcoder.statistics
        XCTAssertEqual(statistics.codecCalls, codecCalls + 2)
        XCTAssertEqual(statistics.evictions, 2)                    // and 2 made way for it
    }

    func testOutputLargerThanTheCapacityIsServedButNotCached() async throws {
        let transcoder = ImageTranscoder(capacity: 100)
        let source = try webp(seed: 20)
        _ = try await transcoder.transcode(source, to: .png)
        _ = try await transcoder.transcode(source, to: .png)
        XCTAssertEqual(transcoder.statistics.misses, 2)
        XCTAssertEqual(transcoder.statistics.bytesCached, 0)
        XCTAssertEqual(transcoder.statistics.evictions, 0)
    }

    func testErrorsAreNotCached() async throws {
        let transcoder = ImageTranscoder()
        let garbage = Data("definitely not an image".utf8)
        for _ in 0..<2 {
            do {
                _ = try await transcoder.transcode(garbage, to: .png)
                XCTFail("expected an error")
            } catch let error as ImageError {
                XCTAssertEqual(error.code, .notAnImage)
            }
        }
        XCTAssertEqual(transcoder.statistics.misses, 2)
        XCTAssertEqual(transcoder.statistics.entryCount, 0)
    }

    func testTranscoderAppliesItsPixelLimit() async throws {
        let transcoder = ImageTranscoder(pixelLimit: 1000)
        let source = try webp(seed: 21)   // 48 x 32 = 1536 pixels
        do {
            _ = try await transcoder.transcode(source, to: .png)
            XCTFail("expected an error")
        } catch {
            XCTAssertEqual("\(error)", "image of 48x32 = 1536 pixels is over the limit of 1000 pixels; raise pixelLimit to allow it")
        }
        do {
            _ = try await transcoder.render(.generated(width: 40, height: 40, pattern: .gradient), as: .png)
            XCTFail("expected an error")
        } catch {
            XCTAssertEqual((error as? ImageError)?.code, .tooLarge)
        }
    }

    func testRenderingAGeneratedImageIsCachedByItsDescription() async throws {
        let transcoder = ImageTranscoder()
        let source = ImageSource.generated(width: 30, height: 20, pattern: .solid(.blue))
        let webp = try await transcoder.render(source, as: .webpLossless)
        let image = try RGBAImage(decoding: webp)
        XCTAssertEqual([image.width, image.height], [30, 20])
        XCTAssertEqual(Array(image.pixels.prefix(4)), [0, 0, 255, 255])
        XCTAssertEqual(try transcoder.renderSync(source, as: .webpLossless), webp)
        let statistics = transcoder.statistics
        XCTAssertEqual(statistics.generations, 1)
        XCTAssertEqual(statistics.encodes, 1)
        XCTAssertEqual(statistics.decodes, 0)
        XCTAssertEqual(statistics.hits, 1)
    }

    func testRenderingFilesAndData() async throws {
        let scratch = try Scratch()
        let source = try webp(seed: 30)
        let path = try scratch.write(source, "image.webp")
        let transcoder = ImageTranscoder()
        let fromFile = try await transcoder.render(.file(URL(fileURLWithPath: path)), as: .png)
        let fromData = try await transcoder.render(.data(source), as: .png)
        XCTAssertEqual(fromFile, fromData)
        // A file is cached by its stamp (path, size, time, inode), data by its digest.
        let fileAgain = try await transcoder.render(.file(URL(fileURLWithPath: path)), as: .png)
        let dataAgain = try await transcoder.render(.data(source), as: .png)
        XCTAssertEqual(fileAgain, fromFile)
        XCTAssertEqual(dataAgain, fromData)
        XCTAssertEqual(transcoder.statistics.hits, 2)
        XCTAssertEqual(transcoder.statistics.decodes, 2)
        // A file rewritten in place is a new source.
        let replacement = try webp(seed: 31)
        try FileManager.default.removeItem(atPath: path)
        try replacement.write(to: URL(fileURLWithPath: path))
        let rewritten = try await transcoder.render(.file(URL(fileURLWithPath: path)), as: .png)
        XCTAssertEqual(try RGBAImage(decoding: rewritten), try RGBAImage(decoding: replacement))
        XCTAssertNotEqual(rewritten, fromFile)
        XCTAssertEqual(try ImageSource.file(URL(fileURLWithPath: path)).originalData(), replacement)
        let generatedPNG = try ImageSource.generated(width: 5, height: 4, pattern: .checkerboard).originalData()
        XCTAssertEqual(try RGBAImage(decoding: generatedPNG), try ImageGenerator.generate(width: 5, height: 4, pattern: .checkerboard))
    }

    func testRemoveAllEmptiesTheCache() async throws {
        let transcoder = ImageTranscoder()
        let source = try webp(seed: 40)
        _ = try await transcoder.transcode(source, to: .png)
        transcoder.removeAll()
        XCTAssertEqual(transcoder.statistics.bytesCached, 0)
        _ = try await transcoder.transcode(source, to: .png)
        XCTAssertEqual(transcoder.statistics.misses, 2)
    }
}
