import Foundation
import Understudy

/// A header line or query parameter: `{name, value}`.
public struct HARNameValue: Sendable, Hashable, Codable {
    /// The name.
    public var name: String
    /// The value.
    public var value: String
    /// A comment.
    public var comment: String?

    /// Creates a pair.
    public init(name: String, value: String, comment: String? = nil) {
        self.name = name
        self.value = value
        self.comment = comment
    }

    enum CodingKeys: String, CodingKey { case name, value, comment }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        value = try container.string(.value, default: "")
        comment = try container.decodeIfPresent(String.self, forKey: .comment)
    }
}

/// A cookie sent (`Cookie`) or set (`Set-Cookie`).
public struct HARCookie: Sendable, Hashable, Codable {
    /// The name.
    public var name: String
    /// The value.
    public var value: String
    /// The path attribute.
    public var path: String?
    /// The domain attribute.
    public var domain: String?
    /// The expiry (ISO 8601).
    public var expires: String?
    /// Whether it is HTTP-only.
    public var httpOnly: Bool?
    /// Whether it is sent over TLS only.
    public var secure: Bool?
    /// A comment.
    public var comment: String?

    /// Creates a cookie.
    public init(name: String, value: String, path: String? = nil, domain: String? = nil, expires: String? = nil,
                httpOnly: Bool? = nil, secure: Bool? = nil, comment: String? = nil) {
        self.name = name
        self.value = value
        self.path = path
        self.domain = domain
        self.expires = expires
        self.httpOnly = httpOnly
        self.secure = secure
        self.comment = comment
    }

    enum CodingKeys: String, CodingKey { case name, value, path, domain, expires, httpOnly, secure, comment }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.string(.name, default: "")
        value = try container.string(.value, default: "")
        path = try container.decodeIfPresent(String.self, forKey: .path)
        domain = try container.decodeIfPresent(String.self, forKey: .domain)
        expires = try? container.decodeIfPresent(String.self, forKey: .expires)
        httpOnly = try? container.decodeIfPresent(Bool.self, forKey: .httpOnly)
        secure = try? container.decodeIfPresent(Bool.self, forKey: .secure)
        comment = try container.decodeIfPresent(String.self, forKey: .comment)
    }
}

/// A request as HAR records it.
public struct HARRequest: Sendable, Hashable, Codable {
    /// The method.
    public var method: String
    /// The absolute URL.
    public var url: String
    /// `HTTP/1.1`, `HTTP/2`, ...
    public var httpVersion: String
    /// Cookies sent.
    public var cookies: [HARCookie]
    /// Header lines, in order.
    public var headers: [HARNameValue]
    /// The query's parameters.
    public var queryString: [HARNameValue]
    /// The body, if any.
    public var postData: HARPostData?
    /// Bytes of the head; -1 when unknown.
    public var headersSize: Int
    /// Bytes of the body; -1 when unknown.
    public var bodySize: Int
    /// A comment.
    public var comment: String?
    /// Members this model does not know, kept for the round trip.
    public var extras: [String: JSONValue]

    /// Creates a request.
    public init(method: String, url: String, httpVersion: String = "HTTP/1.1", cookies: [HARCookie] = [], headers: [HARNameValue] = [],
                queryString: [HARNameValue] = [], postData: HARPostData? = nil, headersSize: Int = -1, bodySize: Int = 0,
                comment: String? = nil, extras: [String: JSONValue] = [:]) {
        self.method = method
        self.url = url
        self.httpVersion = httpVersion
        self.cookies = cookies
        self.headers = headers
        self.queryString = queryString
        self.postData = postData
        self.headersSize = headersSize
        self.bodySize = bodySize
        self.comment = comment
        self.extras = extras
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case method, url, httpVersion, cookies, headers, queryString, postData, headersSize, bodySize, comment
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        method = try container.decode(String.self, forKey: .method)
        url = try container.decode(String.self, forKey: .url)
        httpVersion = try container.string(.httpVersion, default: "HTTP/1.1")
        cookies = try container.array(.cookies)
        headers = try container.array(.headers)
        queryString = try container.array(.queryString)
        postData = try container.decodeIfPresent(HARPostData.self, forKey: .postData)
        headersSize = try container.lenientInt(.headersSize, default: -1)
        bodySize = try container.lenientInt(.bodySize, default: -1)
        comment = try container.decodeIfPresent(String.self, forKey: .comment)
        extras = try decoder.extras(known: Set(CodingKeys.allCases.map(\.rawValue)))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(method, forKey: .method)
        try container.encode(url, forKey: .url)
        try container.encode(httpVersion, forKey: .httpVersion)
        try container.encode(cookies, forKey: .cookies)
        try container.encode(headers, forKey: .headers)
        try container.encode(queryString, forKey: .queryString)
        try container.encodeIfPresent(postData, forKey: .postData)
        try container.encode(headersSize, forKey: .headersSize)
        try container.encode(bodySize, forKey: .bodySize)
        try container.encodeIfPresent(comment, forKey: .comment)
        try encoder.encodeExtras(extras)
    }
}

/// A request body as HAR records it: text, or form parameters.
public struct HARPostData: Sendable, Hashable, Codable {
    /// The body's media type.
    public var mimeType: String
    /// Form parameters, when the writer split them out.
    public var params: [HARParam]?
    /// The body as text (base64 when ``encoding`` says so, an extension some writers use).
    public var text: String?
    /// `base64` when ``text`` is base64 (not in HAR 1.2; Understudy writes it for binary bodies).
    public var encoding: String?
    /// A comment.
    public var comment: String?

    /// Creates a request body.
    public init(mimeType: String, params: [HARParam]? = nil, text: String?, encoding: String? = nil, comment: String? = nil) {
        self.mimeType = mimeType
        self.params = params
        self.text = text
        self.encoding = encoding
        self.comment = comment
    }

    enum CodingKeys: String, CodingKey { case mimeType, params, text, encoding, comment }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        mimeType = try container.string(.mimeType, default: "")
        params = try container.decodeIfPresent([HARParam].self, forKey: .params)
        text = try container.decodeIfPresent(String.self, forKey: .text)
        encoding = try container.decodeIfPresent(String.self, forKey: .encoding)
        comment = try container.decodeIfPresent(String.self, forKey: .comment)
        if encoding == "base64", let text, HARContent.decodeBase64(text) == nil {
            throw HARError.invalid(decoder.codingPath + [CodingKeys.text], "not valid base64")
        }
    }

    /// The body's bytes.
    public var data: Data? {
        guard let text else { return nil }
        return encoding == "base64" ? HARContent.decodeBase64(text) : Data(text.utf8)
    }
}

/// A posted form parameter.
public struct HARParam: Sendable, Hashable, Codable {
    /// The name.
    public var name: String
    /// The value.
    public var value: String?
    /// The uploaded file's name.
    public var fileName: String?
    /// The uploaded file's media type.
    public var contentType: String?
    /// A comment.
    public var comment: String?

    /// Creates a parameter.
    public init(name: String, value: String? = nil, fileName: String? = nil, contentType: String? = nil, comment: String? = nil) {
        self.name = name
        self.value = value
        self.fileName = fileName
        self.contentType = contentType
        self.comment = comment
    }
}

/// A response as HAR records it.
public struct HARResponse: Sendable, Hashable, Codable {
    /// The status; 0 when no response arrived.
    public var status: Int
    /// The reason phrase.
    public var statusText: String
    /// `HTTP/1.1`, ...
    public var httpVersion: String
    /// Cookies set.
    public var cookies: [HARCookie]
    /// Header lines, in order.
    public var headers: [HARNameValue]
    /// The body.
    public var content: HARContent
    /// The `Location` header's target; empty when none.
    public var redirectURL: String
    /// Bytes of the head; -1 when unknown.
    public var headersSize: Int
    /// Bytes of the body as transferred; -1 when unknown.
    public var bodySize: Int
    /// A comment.
    public var comment: String?
    /// Members this model does not know, kept for the round trip.
    public var extras: [String: JSONValue]

    /// Creates a response.
    public init(status: Int, statusText: String = "", httpVersion: String = "HTTP/1.1", cookies: [HARCookie] = [],
                headers: [HARNameValue] = [], content: HARContent, redirectURL: String = "", headersSize: Int = -1,
                bodySize: Int = -1, comment: String? = nil, extras: [String: JSONValue] = [:]) {
        self.status = status
        self.statusText = statusText
        self.httpVersion = httpVersion
        self.cookies = cookies
        self.headers = headers
        self.content = content
        self.redirectURL = redirectURL
        self.headersSize = headersSize
        self.bodySize = bodySize
        self.comment = comment
        self.extras = extras
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case status, statusText, httpVersion, cookies, headers, content, redirectURL, headersSize, bodySize, comment
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard container.contains(.status) else {
            throw HARError.invalid(decoder.codingPath + [CodingKeys.status], "missing")
        }
        status = try container.lenientInt(.status, default: 0)
        statusText = try container.string(.statusText, default: "")
        httpVersion = try container.string(.httpVersion, default: "HTTP/1.1")
        cookies = try container.array(.cookies)
        headers = try container.array(.headers)
        content = try container.decodeIfPresent(HARContent.self, forKey: .content) ?? HARContent(size: 0, mimeType: "")
        redirectURL = try container.string(.redirectURL, default: "")
        headersSize = try container.lenientInt(.headersSize, default: -1)
        bodySize = try container.lenientInt(.bodySize, default: -1)
        comment = try container.decodeIfPresent(String.self, forKey: .comment)
        extras = try decoder.extras(known: Set(CodingKeys.allCases.map(\.rawValue)))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(status, forKey: .status)
        try container.encode(statusText, forKey: .statusText)
        try container.encode(httpVersion, forKey: .httpVersion)
        try container.encode(cookies, forKey: .cookies)
        try container.encode(headers, forKey: .headers)
        try container.encode(content, forKey: .content)
        try container.encode(redirectURL, forKey: .redirectURL)
        try container.encode(headersSize, forKey: .headersSize)
        try container.encode(bodySize, forKey: .bodySize)
        try container.encodeIfPresent(comment, forKey: .comment)
        try encoder.encodeExtras(extras)
    }
}

/// A response body: text as it is, anything else base64 with `encoding: "base64"`.
public struct HARContent: Sendable, Hashable, Codable {
    /// The body's length in bytes, decoded.
    public var size: Int
    /// Bytes saved by compression; absent when unknown.
    public var compression: Int?
    /// The body's media type (the `Content-Type` value).
    public var mimeType: String
    /// The body: text, or base64 when ``encoding`` is `base64`; absent when not recorded.
    public var text: String?
    /// `base64` for a base64 ``text``.
    public var encoding: String?
    /// A comment.
    public var comment: String?
    /// Members this model does not know, kept for the round trip.
    public var extras: [String: JSONValue]

    /// Creates a body record.
    public init(size: Int, compression: Int? = nil, mimeType: String, text: String? = nil, encoding: String? = nil,
                comment: String? = nil, extras: [String: JSONValue] = [:]) {
        self.size = size
        self.compression = compression
        self.mimeType = mimeType
        self.text = text
        self.encoding = encoding
        self.comment = comment
        self.extras = extras
    }

    /// The record of `data` served as `mimeType`: text when the type is textual and the bytes
    /// are UTF-8, base64 otherwise.
    public init(data: Data, mimeType: String) {
        if Self.isTextual(mimeType), let text = String(data: data, encoding: .utf8) {
            self.init(size: data.count, mimeType: mimeType, text: text)
        } else {
            self.init(size: data.count, mimeType: mimeType, text: data.base64EncodedString(), encoding: "base64")
        }
    }

    /// The body's bytes; `nil` when the HAR holds no text.
    public var data: Data? {
        guard let text else { return nil }
        return encoding == "base64" ? Self.decodeBase64(text) : Data(text.utf8)
    }

    /// Whether bodies of this media type are written as text.
    static func isTextual(_ mimeType: String) -> Bool {
        let type = mimeType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        if type.hasPrefix("text/") || type.hasSuffix("+json") || type.hasSuffix("+xml") { return true }
        return [
            "application/json", "application/xml", "application/javascript", "application/ecmascript",
            "application/x-www-form-urlencoded", "application/x-javascript", "image/svg+xml",
        ].contains(type)
    }

    /// Strict base64, ignoring line breaks that some writers insert.
    static func decodeBase64(_ text: String) -> Data? {
        if let data = Data(base64Encoded: text) { return data }
        let stripped = text.filter { !$0.isWhitespace }
        return stripped.count == text.count ? nil : Data(base64Encoded: stripped)
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case size, compression, mimeType, text, encoding, comment }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        size = try container.lenientInt(.size, default: -1)
        compression = container.contains(.compression) ? try container.lenientInt(.compression, default: 0) : nil
        mimeType = try container.string(.mimeType, default: "")
        text = try container.decodeIfPresent(String.self, forKey: .text)
        encoding = try container.decodeIfPresent(String.self, forKey: .encoding)
        comment = try container.decodeIfPresent(String.self, forKey: .comment)
        extras = try decoder.extras(known: Set(CodingKeys.allCases.map(\.rawValue)))
        if let encoding, !encoding.isEmpty, encoding != "base64" {
            throw HARError.invalid(decoder.codingPath + [CodingKeys.encoding], "unknown encoding '\(encoding)'; expected base64 or none")
        }
        if encoding == "base64", let text, Self.decodeBase64(text) == nil {
            throw HARError.invalid(decoder.codingPath + [CodingKeys.text], "not valid base64")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(size, forKey: .size)
        try container.encodeIfPresent(compression, forKey: .compression)
        try container.encode(mimeType, forKey: .mimeType)
        try container.encodeIfPresent(text, forKey: .text)
        try container.encodeIfPresent(encoding, forKey: .encoding)
        try container.encodeIfPresent(comment, forKey: .comment)
        try encoder.encodeExtras(extras)
    }
}
