import Foundation
import Understudy

/// What the admin API answers: a status, headers and a JSON body, ready for the wire.
///
/// Bodies are JSON (`Content-Type: application/json`) with a `Content-Length`; a 204 has
/// neither header nor body.
package struct AdminResponse: Sendable {
    /// The status code.
    package var status: Int
    /// The header lines.
    package var headers: HeaderFields
    /// The body.
    package var body: Data
    /// For a stream (`GET /__admin/events`): the body's chunks, sent as they come after a head
    /// without `Content-Length`, the connection closing at the end; `body` is then unused.
    package var stream: AsyncStream<Data>?

    /// Creates a response from its parts.
    package init(status: Int, headers: HeaderFields, body: Data, stream: AsyncStream<Data>? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.stream = stream
    }

    /// A response whose body is `value` as compact JSON with sorted keys and a final newline.
    /// - Parameters:
    ///   - status: the status code.
    ///   - value: the body's value.
    ///   - extraHeaders: headers added after `Content-Type` and `Content-Length`.
    package static func json(_ status: Int, _ value: some Encodable, extraHeaders: HeaderFields = [:]) -> AdminResponse {
        var body = AdminResponse.encode(value)
        body.append(0x0A)
        var headers: HeaderFields = ["Content-Type": "application/json", "Content-Length": String(body.count)]
        headers.merge(extraHeaders)
        return AdminResponse(status: status, headers: headers, body: body)
    }

    /// `204 No Content`: no body, no `Content-Length`, no `Content-Type`.
    package static let noContent = AdminResponse(status: 204, headers: [:], body: Data())

    /// An error response: `{"error": message, "field": field}`.
    static func error(_ status: Int, _ message: String, field: String? = nil, extraHeaders: HeaderFields = [:]) -> AdminResponse {
        json(status, AdminJSON.Error(error: message, field: field), extraHeaders: extraHeaders)
    }

    /// Compact JSON with sorted keys, slashes unescaped (URLs stay readable).
    static func encode(_ value: some Encodable) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return try encoder.encode(value)
        } catch {
            // Only non-finite numbers could fail, and the admin types hold none.
            return Data(#"{"error":"cannot encode the response"}"#.utf8)
        }
    }
}
