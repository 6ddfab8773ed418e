import Foundation
import Understudy
import UnderstudyImages
import UnderstudyServer
import XCTest

/// What curl saw for one request.
struct CurlResponse {
    let status: Int
    let headers: HeaderFields
    let body: Data
}

/// One GET with curl (no redirect following unless `follow`), with a hard time limit.
func curlGet(_ url: URL, follow: Bool = false, headers: [String] = []) throws -> CurlResponse {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("har-curl-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let headerFile = directory.appendingPathComponent("headers"), bodyFile = directory.appendingPathComponent("body")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["curl", "--silent", "--show-error", "--max-time", "10", "--dump-header", headerFile.path, "--output", bodyFile.path]
        + (follow ? ["--location"] : []) + headers.flatMap { ["--header", $0] } + [url.absoluteString]
    let errors = Pipe()
    process.standardError = errors
    try process.run()
    process.waitUntilExit()
    let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    guard process.terminationStatus == 0 else {
        throw NSError(domain: "curl", code: Int(process.terminationStatus), userInfo: [NSLocalizedDescriptionKey: stderr])
    }
    // With --location the header file holds every hop; the last block is the final response.
    let text = String(decoding: try Data(contentsOf: headerFile), as: UTF8.self)
    let block = text.components(separatedBy: "\r\n\r\n").filter { !$0.isEmpty }.last ?? ""
    var lines = block.components(separatedBy: "\r\n")
    let statusLine = lines.removeFirst()
    let status = Int(statusLine.split(separator: " ")[1]) ?? 0
    var fields = HeaderFields()
    for line in lines {
        guard let colon = line.firstIndex(of: ":") else { continue }
        fields.add(name: String(line[..<colon]), value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
    }
    let body = (try? Data(contentsOf: bodyFile)) ?? Data()
    return CurlResponse(status: status, headers: fields, body: body)
}

/// Runs `body` with a server for `registry`, stopping it afterwards whatever happens.
func withServer<T>(_ registry: StubRegistry, _ body: (StubServer) async throws -> T) async throws -> T {
    let server = try await StubServer.start(serving: registry)
    do {
        let result = try await body(server)
        try await server.stop()
        return result
    } catch {
        try? await server.stop()
        throw error
    }
}

/// A small but real PNG (1x1, RGBA), so Content-Type sniffing sees an image.
let onePixelPNG = Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")!

/// A lossy WebP (VP8) of a photo-like image, from our encoder; `cwebp`'s output has the same shape.
func lossyWebP() throws -> Data {
    let data = try ImageGenerator.photoLike(width: 64, height: 48, seed: 5).webPData(quality: 70)
    // RIFF....WEBPVP8 : the lossy bitstream, not VP8L.
    XCTAssertEqual(Array(data[8..<16]), Array("WEBPVP8 ".utf8), "not a lossy WebP")
    return data
}
