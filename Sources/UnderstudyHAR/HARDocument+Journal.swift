import Foundation
import Understudy

extension HARDocument {
    /// The journal's interactions as HAR, oldest first.
    ///
    /// Response bodies are written only when the journal kept them (`Journal.keepsBodies`);
    /// otherwise `content` gives the size without `text`. Text bodies are written as text,
    /// anything else base64 with `encoding: "base64"`. The stub and fault go under `_understudy`.
    ///
    /// ```swift
    /// stubs.journal.keepsBodies = true
    /// // ... requests ...
    /// try HARDocument(journal: stubs.journal).write(to: harURL)
    /// ```
    /// - Parameter journal: the journal to export.
    public init(journal: Journal) {
        self.init(interactions: journal.interactions)
    }

    /// These interactions as HAR, in the order given.
    public init(interactions: [Interaction]) {
        self.init(log: HARLog(entries: interactions.map(HAREntry.init(interaction:))))
    }
}

extension Journal {
    /// The journal as a HAR document (see ``HARDocument/init(journal:)``).
    public func har() -> HARDocument {
        HARDocument(journal: self)
    }
}

extension HAREntry {
    /// The HAR record of one interaction.
    public init(interaction: Interaction) {
        let request = interaction.request
        let milliseconds = Self.milliseconds(interaction.duration)
        let headers = interaction.responseHeaders
        let mimeType = headers["Content-Type"] ?? ""
        var content = HARContent(size: interaction.bodyBytesSent, mimeType: mimeType)
        if let body = interaction.responseBody {
            content = HARContent(data: body, mimeType: mimeType)
        }
        let requestMime = request.headers["Content-Type"] ?? ""
        let postData = request.body.flatMap { body -> HARPostData? in
            guard !body.isEmpty else { return nil }
            let record = HARContent(data: body, mimeType: requestMime.isEmpty ? "application/octet-stream" : requestMime)
            return HARPostData(mimeType: requestMime, text: record.text, encoding: record.encoding)
        }
        let status = interaction.status ?? 0
        self.init(
            startedDateTime: interaction.startTime.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)),
            time: milliseconds,
            request: HARRequest(
                method: request.method,
                url: request.url.absoluteString,
                httpVersion: interaction.httpVersion.rawValue,
                cookies: Self.cookies(sent: request.headers.values(for: "Cookie")),
                headers: request.headers.map { HARNameValue(name: $0.name, value: $0.value) },
                queryString: request.queryItems.map { HARNameValue(name: $0.name, value: $0.value) },
                postData: postData,
                bodySize: request.body?.count ?? 0
            ),
            response: HARResponse(
                status: status,
                statusText: HTTPStatusText.phrase(for: status),
                httpVersion: interaction.status == nil ? "" : interaction.httpVersion.rawValue,
                cookies: headers.values(for: "Set-Cookie").compactMap(Self.cookie(set:)),
                headers: headers.map { HARNameValue(name: $0.name, value: $0.value) },
                content: content,
                redirectURL: headers["Location"] ?? "",
                bodySize: interaction.status == nil ? -1 : interaction.bodyBytesSent
            ),
            timings: HARTimings(
                send: Self.milliseconds(interaction.timing.send), wait: Self.milliseconds(interaction.timing.wait),
                receive: Self.milliseconds(interaction.timing.receive),
                comment: interaction.network.map { "network \($0)" }
            ),
            connection: interaction.connection.map(String.init),
            understudy: HARUnderstudy(
                stub: interaction.stubName, fault: interaction.fault?.description, transport: interaction.transport.rawValue,
                network: interaction.network?.description
            )
        )
    }

    /// The cookies of `Cookie` header values: `a=1; b=2`.
    /// `duration` in HAR's unit, milliseconds.
    static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }

    static func cookies(sent values: [String]) -> [HARCookie] {
        values.flatMap { $0.split(separator: ";") }.compactMap { pair in
            let trimmed = pair.trimmingCharacters(in: .whitespaces)
            guard let equals = trimmed.firstIndex(of: "=") else { return nil }
            return HARCookie(name: String(trimmed[..<equals]), value: String(trimmed[trimmed.index(after: equals)...]))
        }
    }

    /// The cookie a `Set-Cookie` value sets: `id=7; Path=/; HttpOnly`.
    static func cookie(set value: String) -> HARCookie? {
        let parts = value.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let first = parts.first, let equals = first.firstIndex(of: "=") else { return nil }
        var cookie = HARCookie(name: String(first[..<equals]), value: String(first[first.index(after: equals)...]))
        for attribute in parts.dropFirst() {
            let pieces = attribute.split(separator: "=", maxSplits: 1).map(String.init)
            let value = pieces.count > 1 ? pieces[1] : ""
            switch pieces[0].lowercased() {
            case "path": cookie.path = value
            case "domain": cookie.domain = value
            case "expires": cookie.expires = value
            case "httponly": cookie.httpOnly = true
            case "secure": cookie.secure = true
            default: break
            }
        }
        return cookie
    }
}

/// Reason phrases for `statusText`.
enum HTTPStatusText {
    static func phrase(for status: Int) -> String {
        switch status {
        case 200: return "OK"
        case 201: return "Created"
        case 202: return "Accepted"
        case 204: return "No Content"
        case 206: return "Partial Content"
        case 301: return "Moved Permanently"
        case 302: return "Found"
        case 303: return "See Other"
        case 304: return "Not Modified"
        case 307: return "Temporary Redirect"
        case 308: return "Permanent Redirect"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 406: return "Not Acceptable"
        case 409: return "Conflict"
        case 410: return "Gone"
        case 413: return "Content Too Large"
        case 415: return "Unsupported Media Type"
        case 429: return "Too Many Requests"
        case 500: return "Internal Server Error"
        case 501: return "Not Implemented"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        default: return ""
        }
    }
}
