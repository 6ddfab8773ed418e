import Foundation
import NIOCore
import NIOHTTP1
import Understudy

/// A prepared response in NIO's terms: its status, validated headers and the body in a
/// `ByteBuffer`, made once per rendering and shared by every connection that sends it (a
/// `ByteBuffer` slice shares storage, so sending the same file twice copies nothing).
struct WireResponse: Sendable {
    /// Why a response cannot go on the wire as given.
    struct InvalidHeader: Error, Sendable {
        let message: String
    }

    let status: HTTPResponseStatus
    /// The headers for a keep-alive HTTP/1.1 exchange; ``headers(keepAlive:version:closing:)``
    /// adjusts them for the others.
    let headers: HTTPHeaders
    let body: ByteBuffer

    /// Encodes `prepared`, refusing header names that are not tokens and values with CR, LF
    /// or NUL (NIO's own outbound check is off, since every rendering passes through here).
    init(_ prepared: PreparedResponse, allocator: ByteBufferAllocator) throws(InvalidHeader) {
        var headers = HTTPHeaders()
        headers.reserveCapacity(prepared.headers.count + 1)
        for field in prepared.headers {
            if let problem = Self.problem(name: field.name, value: field.value) {
                throw InvalidHeader(message: problem)
            }
            headers.add(name: field.name, value: field.value)
        }
        if prepared.status == 204 || prepared.status == 304 || (100...199).contains(prepared.status) {
            headers.remove(name: "content-length")
        }
        self.status = HTTPResponseStatus(statusCode: prepared.status)
        self.headers = headers
        self.body = allocator.buffer(bytes: prepared.body)
    }

    /// The headers for this exchange: `Connection: close` when the connection ends after it,
    /// `Connection: keep-alive` for an HTTP/1.0 client that keeps it.
    func headers(keepAlive: Bool, version: HTTPVersion, closing: Bool) -> HTTPHeaders {
        if !keepAlive || closing {
            var headers = headers
            headers.replaceOrAdd(name: "Connection", value: "close")
            return headers
        }
        if version.major == 1, version.minor == 0 {
            var headers = headers
            headers.replaceOrAdd(name: "Connection", value: "keep-alive")
            return headers
        }
        return headers
    }

    /// What is wrong with a header line, or `nil` when it can be sent.
    static func problem(name: String, value: String) -> String? {
        if name.isEmpty || !name.utf8.allSatisfy(isTokenByte) {
            return "header name \"\(name)\" is not an HTTP token"
        }
        if value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }) {
            return "header \(name)'s value contains CR, LF or NUL"
        }
        return nil
    }

    /// RFC 9110 `tchar`.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"),
             UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
             UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }
}
