import Foundation
import Understudy
import XCTest

/// A temporary directory holding a `Stubs` directory, loaded through a URL relative to the
/// temporary base so that issues name files `Stubs/...` whatever the machine.
final class StubFileSandbox {
    let base: URL
    /// `Stubs`, relative to ``base``.
    let stubs: URL

    init() throws {
        base = FileManager.default.temporaryDirectory
            .appendingPathComponent("understudy-stubfiles-\(UUID().uuidString)", isDirectory: true)
        stubs = URL(fileURLWithPath: "Stubs", isDirectory: true, relativeTo: base)
        try FileManager.default.createDirectory(at: stubs, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: base)
    }

    /// Writes `text` to `Stubs/<path>`, creating directories.
    @discardableResult
    func write(_ path: String, _ text: String) throws -> URL {
        try write(path, Data(text.utf8))
    }

    @discardableResult
    func write(_ path: String, _ data: Data) throws -> URL {
        let url = stubs.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: url)
        return url
    }

    /// A URL relative to ``base``, as a caller in that directory would give it.
    func relative(_ path: String) -> URL {
        URL(fileURLWithPath: path, relativeTo: base)
    }

    /// The issue lines loading `Stubs` gives; empty when it loads.
    func issues() -> [String] {
        do {
            _ = try StubFileLoader.load(from: stubs)
            return []
        } catch let error as StubFileError {
            return error.issues.map(\.description)
        } catch {
            return ["unexpected error: \(error)"]
        }
    }
}

struct UnmatchedError: Error {}

/// The bytes of a PNG's signature and an IHDR start: enough for Content-Type sniffing.
let pngBytes = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52])

extension StubRegistry {
    /// `request` answered as the transports answer it: by a ``StubResponder`` on this registry
    /// (conditional requests and ranges included), without a journal entry.
    func respond(to request: StubRequest, upstream: (any UpstreamFetcher)? = nil) async -> StubAnswer {
        await StubResponder(registry: self, transport: .inProcess, upstream: upstream).answer(request)
    }

    /// Answers a GET (or `method`) for `url` and returns the prepared response; fails the
    /// test and throws when no stub matched.
    func answer(
        _ url: String, method: String = "GET", headers: HeaderFields = [:], body: Data? = nil,
        file: StaticString = #filePath, line: UInt = #line
    ) async throws -> PreparedResponse {
        let request = StubRequest(method: method, url: URL(string: url)!, headers: headers, body: body)
        let answer = await respond(to: request)
        switch answer.kind {
        case .stub:
            return answer.response
        case .failed(let message):
            XCTFail("stub failed: \(message)", file: file, line: line)
            return answer.response
        case .unmatched(let misses):
            XCTFail("unmatched \(request); near misses: \(misses)", file: file, line: line)
            throw UnmatchedError()
        case .forwarded, .refused:
            XCTFail("not answered by a stub: \(answer.kind)", file: file, line: line)
            return answer.response
        }
    }

    /// Whether `url` goes unmatched.
    func isUnmatched(_ url: String, method: String = "GET", headers: HeaderFields = [:]) async -> Bool {
        let request = StubRequest(method: method, url: URL(string: url)!, headers: headers)
        if case .unmatched = await respond(to: request).kind { return true }
        return false
    }
}

extension StubAnswer {
    /// The response, when a stub answered.
    var stubResponse: PreparedResponse? {
        if case .stub = kind { return response }
        return nil
    }

    /// The response and why, when the stub failed.
    var failure: (response: PreparedResponse, message: String)? {
        if case .failed(let message) = kind { return (response, message) }
        return nil
    }
}

extension PreparedResponse {
    var text: String { String(decoding: body, as: UTF8.self) }
}
