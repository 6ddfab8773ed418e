import Foundation

/// A request as stubs see it: what matchers test, closures receive and the journal records.
///
/// Both transports build one: the URL protocol from a `URLRequest`, the server from the wire.
public struct StubRequest: Sendable, Hashable, CustomStringConvertible {
    /// The method, uppercased (`GET`, `HEAD`, `POST`, ...).
    public let method: String
    /// The full URL, with scheme and host (in origin mode the host comes from `Host`).
    public let url: URL
    /// The header lines as the client sent them.
    public let headers: HeaderFields
    /// The body, when one was sent and could be seen.
    public let body: Data?
    /// How long the client waits for an answer (the `no-response` fault holds this long
    /// in-process); 60 seconds unless the client said otherwise.
    public let timeoutInterval: TimeInterval

    // Parsed once here so that matching a request against thousands of stubs does not
    // re-parse the URL for every stub.
    /// The scheme, lowercased.
    public let scheme: String
    /// The host without port, lowercased.
    public let host: String
    /// The port, when the URL gives one.
    public let port: Int?
    /// The percent-decoded path; `/` when the URL has none.
    public let path: String
    /// The path's extension, lowercased, without query or fragment; empty when none.
    public let pathExtension: String
    /// The query items in order; a key given without `=` has an empty value.
    public let queryItems: [(name: String, value: String)]

    /// Creates a request.
    /// - Parameters:
    ///   - method: the HTTP method; stored uppercased.
    ///   - url: the absolute URL.
    ///   - headers: the header lines.
    ///   - body: the body, if any.
    ///   - timeoutInterval: the client's timeout.
    public init(method: String = "GET", url: URL, headers: HeaderFields = [:], body: Data? = nil, timeoutInterval: TimeInterval = 60) {
        self.method = method.uppercased()
        self.timeoutInterval = timeoutInterval
        self.url = url
        self.headers = headers
        self.body = body
        let components = URLComponents(url: url, resolvingAgainstBaseURL: true)
        self.scheme = (components?.scheme ?? url.scheme ?? "").lowercased()
        self.host = (components?.host ?? "").lowercased()
        self.port = components?.port
        let path = components?.path ?? ""
        self.path = path.isEmpty ? "/" : path
        self.pathExtension = StubRequest.extensionOf(path: self.path)
        self.queryItems = (components?.queryItems ?? []).map { ($0.name, $0.value ?? "") }
    }

    /// Creates a request from a string URL; `nil` when it is not a valid URL.
    public init?(method: String = "GET", _ urlString: String, headers: HeaderFields = [:], body: Data? = nil) {
        guard let url = URL(string: urlString) else { return nil }
        self.init(method: method, url: url, headers: headers, body: body)
    }

    static func extensionOf(path: String) -> String {
        guard let lastSlash = path.lastIndex(of: "/") ?? path.indices.first else { return "" }
        let name = path[lastSlash...]
        guard let dot = name.lastIndex(of: "."), name.index(after: dot) < name.endIndex else { return "" }
        return name[name.index(after: dot)...].lowercased()
    }

    public static func == (lhs: StubRequest, rhs: StubRequest) -> Bool {
        lhs.method == rhs.method && lhs.url == rhs.url && lhs.headers == rhs.headers && lhs.body == rhs.body
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(method)
        hasher.combine(url)
        hasher.combine(headers)
        hasher.combine(body)
    }

    /// `METHOD URL`, as logs and near-miss reports print it.
    public var description: String {
        "\(method) \(url.absoluteString)"
    }
}
