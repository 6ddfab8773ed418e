import Foundation

extension PreparedResponse {
    /// A plain-text answer of the core's own (unmatched, refused, failed): `text` as
    /// `text/plain; charset=utf-8` with its length. Built here only, so both transports send
    /// the same bytes.
    package static func text(status: Int, _ text: String, stubName: String? = nil) -> PreparedResponse {
        let body = Data(text.utf8)
        var headers: HeaderFields = ["Content-Type": "text/plain; charset=utf-8", "Content-Length": String(body.count)]
        if let stubName { headers["X-Understudy-Stub"] = stubName }
        return PreparedResponse(status: status, headers: headers, body: body, stubName: stubName)
    }
}
