internal import NIOCore
internal import NIOHTTP1
import Understudy

/// A request's head as the exchange takes it, whichever protocol brought it: HTTP/1.1's
/// parser (``init(_:)``) or an HTTP/2 HEADERS block (``init(http2Request:)``). Its fields are
/// NIO's ordered list of names and values, which both protocols fill without a copy.
struct RequestHead {
    /// The HTTP version the request came over.
    enum Version: Equatable {
        case http1_0, http1_1, http2

        /// As the journal names it (HTTP/1.0 is journaled with HTTP/1.1).
        var journaled: Interaction.HTTPVersion { self == .http2 ? .http2 : .http1_1 }
    }

    /// `GET`, `POST`: as the client wrote it.
    let method: String
    /// The request target: a path and query (`:path`), an absolute URL (a forward proxy's
    /// request), or `host:port` (`CONNECT`).
    let target: String
    let version: Version
    /// The header fields in the order they came (HTTP/2's `:authority` as `host`).
    let fields: HTTPHeaders
    /// Whether the connection stays open after the answer: HTTP/1.x's keep-alive; always for
    /// an HTTP/2 stream, whose connection is not the request's to close.
    let keepAlive: Bool

    init(method: String, target: String, version: Version, fields: HTTPHeaders, keepAlive: Bool) {
        self.method = method
        self.target = target
        self.version = version
        self.fields = fields
        self.keepAlive = keepAlive
    }

    /// The head NIO's HTTP/1.1 parser made.
    init(_ head: HTTPRequestHead) {
        self.init(
            method: head.method.rawValue, target: head.uri, version: head.version == .http1_0 ? .http1_0 : .http1_1,
            fields: head.headers, keepAlive: head.isKeepAlive
        )
    }

    /// Whether a body follows: the head declares a length above zero, or is chunked.
    var hasBody: Bool {
        if let length = fields.first(name: "content-length") { return length != "0" }
        return fields.contains(name: "transfer-encoding")
    }

    /// Whether the head declares a body over `limit` bytes.
    func declaresBody(over limit: Int) -> Bool {
        fields.first(name: "content-length").flatMap(Int.init).map { $0 > limit } ?? false
    }

    /// Whether the request asks `Expect: 100-continue` before sending its body (HTTP/1.0
    /// knows no 1xx heads).
    var expectsContinue: Bool {
        version != .http1_0 && fields[canonicalForm: "expect"].contains { $0.lowercased() == "100-continue" }
    }
}
