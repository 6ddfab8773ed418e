import Foundation

/// A request as stubs see it: what matchers test, closures receive and the journal records.
///
/// Both transports build one: the URL protocol from a `URLRequest`, the server from the wire.
public struct StubRequest: Sendable, Hashable, CustomStringConvertible {
    /// The fields, in one shared box: a request is handed along the whole server path (the
    /// handlers, the responder, the delivery, the journal), and every step then copies one
    /// reference rather than a dozen strings' worth of them.
    private final class Storage: Sendable {
        let method: String
        /// The URL's text as given, or the parts it is made of, joined only when asked for.
        let url: URLText
        let headers: HeaderFields
        let body: Data?
        let timeoutInterval: TimeInterval
        let scheme: String
        let host: String
        let port: Int?
        let path: String
        let pathExtension: String
        let queryItems: [(name: String, value: String)]
        /// The request target (`/a.png?w=1`) when the URL is `scheme://` + `Host` + it.
        let originFormTarget: String?
        /// ``headers`` as the journal packs them, for a request kept to be answered again (see
        /// ``StubRequest/packingHeadersForTheJournal()``); `nil` for others.
        let packedHeaders: PackedHeaders?

        init(
            method: String, url: URLText, headers: HeaderFields, body: Data?, timeoutInterval: TimeInterval,
            scheme: String, host: String, port: Int?, path: String, queryItems: [(name: String, value: String)],
            originFormTarget: String?, packedHeaders: PackedHeaders? = nil
        ) {
            self.method = method
            self.url = url
            self.headers = headers
            self.body = body
            self.timeoutInterval = timeoutInterval
            self.scheme = scheme
            self.host = host
            self.port = port
            self.path = path
            self.pathExtension = StubRequest.extensionOf(path: path)
            self.queryItems = queryItems
            self.originFormTarget = originFormTarget
            self.packedHeaders = packedHeaders
        }
    }

    /// A URL's text, or the parts of an origin-form request's URL: the server builds a request
    /// for every one it answers, and joining `scheme://authority/target` into a new string is
    /// left for when a URL matcher, a journal entry without an origin-form target or a test
    /// asks for the text, which most requests never do.
    private enum URLText: Sendable {
        case whole(String)
        case parts(scheme: String, authority: String, target: String)

        var text: String {
            switch self {
            case .whole(let text): text
            case .parts(let scheme, let authority, let target): String(joiningUTF8Of: [scheme, "://", authority, target])
            }
        }
    }

    private let storage: Storage

    /// The method, uppercased (`GET`, `HEAD`, `POST`, ...).
    public var method: String { storage.method }
    /// The full URL as text, with scheme and host (in origin mode the host comes from `Host`).
    public var urlString: String { storage.url.text }
    /// The header lines as the client sent them.
    public var headers: HeaderFields { storage.headers }
    /// The body, when one was sent and could be seen.
    public var body: Data? { storage.body }
    /// How long the client waits for an answer (the `no-response` fault holds this long
    /// in-process); 60 seconds unless the client said otherwise.
    public var timeoutInterval: TimeInterval { storage.timeoutInterval }

    // Parsed once here so that matching a request against thousands of stubs does not
    // re-parse the URL for every stub.
    /// The scheme, lowercased.
    public var scheme: String { storage.scheme }
    /// The host without port, lowercased.
    public var host: String { storage.host }
    /// The port, when the URL gives one.
    public var port: Int? { storage.port }
    /// The percent-decoded path; `/` when the URL has none.
    public var path: String { storage.path }
    /// The path's extension, lowercased, without query or fragment; empty when none.
    public var pathExtension: String { storage.pathExtension }
    /// The query items in order; a key given without `=` has an empty value.
    public var queryItems: [(name: String, value: String)] { storage.queryItems }

    /// The full URL, with scheme and host (in origin mode the host comes from `Host`).
    ///
    /// Built from ``urlString`` when asked for: the server journals many requests whose
    /// `URL` nobody ever looks at.
    public var url: URL {
        URL(string: urlString) ?? URL(string: "about:blank")!
    }

    /// Creates a request.
    /// - Parameters:
    ///   - method: the HTTP method; stored uppercased.
    ///   - url: the absolute URL.
    ///   - headers: the header lines.
    ///   - body: the body, if any.
    ///   - timeoutInterval: the client's timeout.
    public init(method: String = "GET", url: URL, headers: HeaderFields = [:], body: Data? = nil, timeoutInterval: TimeInterval = 60) {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: true)
        let path = components?.path ?? ""
        self.init(
            method: method.uppercased(), url: .whole(url.absoluteString), headers: headers, body: body,
            timeoutInterval: timeoutInterval,
            scheme: (components?.scheme ?? url.scheme ?? "").lowercased(),
            host: (components?.host ?? "").lowercased(),
            port: components?.port,
            path: path.isEmpty ? "/" : path,
            queryItems: (components?.queryItems ?? []).map { ($0.name, $0.value ?? "") }
        )
    }

    /// Creates a request from a string URL; `nil` when it is not a valid URL.
    public init?(method: String = "GET", _ urlString: String, headers: HeaderFields = [:], body: Data? = nil) {
        guard let url = URL(string: urlString) else { return nil }
        self.init(method: method, url: url, headers: headers, body: body)
    }

    /// Creates a request from what came over the wire in origin form: the listener's scheme,
    /// the `Host` authority and a request target such as `/cats/1.png?w=200`.
    ///
    /// Plain targets and authorities are parsed by hand, which is what a stub server does for
    /// every request; anything unusual (percent-escapes that do not decode, IPv6 literals,
    /// characters a URL may not hold) goes through `URLComponents` as before. `nil` when even
    /// that cannot make a URL of it.
    package init?(
        method: String, scheme: String, authority: String, target: String, headers: HeaderFields, body: Data?,
        timeoutInterval: TimeInterval = 60
    ) {
        guard let parsed = Self.parseOriginForm(authority: authority, target: target) else {
            guard let url = URL(string: URLText.parts(scheme: scheme, authority: authority, target: target).text) else { return nil }
            self.init(method: method, url: url, headers: headers, body: body, timeoutInterval: timeoutInterval)
            return
        }
        self.init(
            method: method.uppercasedASCIIIfNeeded, url: .parts(scheme: scheme, authority: authority, target: target), headers: headers, body: body,
            timeoutInterval: timeoutInterval, scheme: scheme.lowercasedASCIIIfNeeded, host: parsed.host, port: parsed.port,
            path: parsed.path, queryItems: parsed.query, originFormTarget: headers["Host"] == authority ? target : nil
        )
    }

    /// The request target (`/a.png?w=1`) when the URL is `scheme://` + `Host` + target and was
    /// parsed by hand, so that parsing it again gives the same request; `nil` otherwise.
    var originFormTarget: String? {
        storage.originFormTarget
    }

    /// The same request holding its headers packed as the journal keeps them, for a request
    /// kept to be answered again and again: each answer's journal entry then shares them rather
    /// than packing them anew.
    package func packingHeadersForTheJournal() -> StubRequest {
        guard storage.packedHeaders == nil else { return self }
        let kept = storage
        return StubRequest(
            storage: Storage(
                method: kept.method, url: kept.url, headers: kept.headers, body: kept.body, timeoutInterval: kept.timeoutInterval,
                scheme: kept.scheme, host: kept.host, port: kept.port, path: kept.path, queryItems: kept.queryItems,
                originFormTarget: kept.originFormTarget, packedHeaders: PackedHeaders(kept.headers)
            )
        )
    }

    /// The headers as the journal packs them, when ``packingHeadersForTheJournal()`` made them.
    var packedHeaders: PackedHeaders? {
        storage.packedHeaders
    }

    private init(storage: Storage) {
        self.storage = storage
    }

    private init(
        method: String, url: URLText, headers: HeaderFields, body: Data?, timeoutInterval: TimeInterval,
        scheme: String, host: String, port: Int?, path: String, queryItems: [(name: String, value: String)],
        originFormTarget: String? = nil
    ) {
        storage = Storage(
            method: method, url: url, headers: headers, body: body, timeoutInterval: timeoutInterval,
            scheme: scheme, host: host, port: port, path: path, queryItems: queryItems, originFormTarget: originFormTarget
        )
    }

    /// Host, port, decoded path and query of a plain authority and origin-form target, or
    /// `nil` when either holds anything the hand parser leaves to `URLComponents`.
    private static func parseOriginForm(
        authority: String, target: String
    ) -> (host: String, port: Int?, path: String, query: [(name: String, value: String)])? {
        // One pass over each one's bytes (contiguous for a native string), as every request
        // comes this way: the checks, the port's colon and the query's question mark.
        var target = target, authority = authority
        let question: String.Index?
        let escaped: Bool
        switch target.withUTF8(Self.scanTarget) {
        case .refused: return nil
        case .noQuery(let hasPercent): (question, escaped) = (nil, hasPercent)
        case .query(let offset, let hasPercent):
            (question, escaped) = (target.utf8.index(target.utf8.startIndex, offsetBy: offset), hasPercent)
        }

        guard let (host, port) = authority.withUTF8(Self.scanAuthority) else { return nil }
        let rawPath: Substring, rawQuery: Substring?
        if let question {
            rawPath = target[..<question]
            rawQuery = target[target.utf8.index(after: question)...]
        } else {
            rawPath = Substring(target)
            rawQuery = nil
        }
        // A target with neither a query nor an escape is its own path, shared rather than copied.
        guard let path = question == nil && !escaped ? target : decoded(rawPath, escaped: escaped) else { return nil }
        var query: [(name: String, value: String)] = []
        if let rawQuery, !rawQuery.isEmpty {
            for item in rawQuery.split(separator: "&", omittingEmptySubsequences: false) {
                let name: Substring, value: Substring
                if let equals = item.utf8.firstIndex(of: UInt8(ascii: "=")) {
                    name = item[..<equals]
                    value = item[item.utf8.index(after: equals)...]
                } else {
                    name = item
                    value = ""
                }
                guard let decodedName = decoded(name, escaped: escaped), let decodedValue = decoded(value, escaped: escaped) else { return nil }
                query.append((decodedName, decodedValue))
            }
        }
        return (host, port, path, query)
    }

    private enum TargetScan { case refused, noQuery(hasPercent: Bool), query(at: Int, hasPercent: Bool) }

    /// Whether a target is origin-form with only the bytes parsed by hand, where its query
    /// starts, and whether it holds percent-escapes.
    private static func scanTarget(_ bytes: UnsafeBufferPointer<UInt8>) -> TargetScan {
        guard bytes.first == UInt8(ascii: "/") else { return .refused }
        var question: Int?
        var hasPercent = false
        for offset in bytes.indices {
            let byte = bytes[offset]
            guard isTargetByte(byte) else { return .refused }
            if byte == UInt8(ascii: "?"), question == nil { question = offset }
            if byte == UInt8(ascii: "%") { hasPercent = true }
        }
        return question.map { .query(at: $0, hasPercent: hasPercent) } ?? .noQuery(hasPercent: hasPercent)
    }

    /// An authority's host, lowercased, and its port, read in one pass; `nil` when it is
    /// empty, holds a byte the hand parser leaves to `URLComponents`, or has an empty host or
    /// a port that is not a number up to 65,535. The port is the digits after the last colon.
    private static func scanAuthority(_ bytes: UnsafeBufferPointer<UInt8>) -> (host: String, port: Int?)? {
        guard !bytes.isEmpty else { return nil }
        var colon: Int?
        var port = 0, portIsNumber = true, hasUppercase = false
        for offset in bytes.indices {
            let byte = bytes[offset]
            guard isAuthorityByte(byte) else { return nil }
            switch byte {
            case UInt8(ascii: ":"):
                colon = offset
                (port, portIsNumber) = (0, true)
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                // Stops growing past the largest port, so a long run of digits cannot overflow.
                if port <= 65_535 { port = port * 10 + Int(byte - UInt8(ascii: "0")) }
            default:
                portIsNumber = false
                if byte >= UInt8(ascii: "A"), byte <= UInt8(ascii: "Z") { hasUppercase = true }
            }
        }
        let hostCount = colon ?? bytes.count
        guard hostCount > 0 else { return nil }
        let host = String(decoding: UnsafeBufferPointer(rebasing: bytes[..<hostCount]), as: UTF8.self)
        guard let colon else { return (hasUppercase ? host.lowercased() : host, nil) }
        guard portIsNumber, port <= 65_535 else { return nil }
        return (hasUppercase ? host.lowercased() : host, colon == bytes.count - 1 ? nil : port)
    }

    /// `text` with its percent-escapes decoded; looked for only when the scan saw a `%` in the
    /// target (`escaped`), so a target without one is not searched a second time.
    private static func decoded(_ text: Substring, escaped: Bool) -> String? {
        guard escaped, text.utf8.contains(UInt8(ascii: "%")) else { return String(text) }
        return String(text).removingPercentEncoding
    }

    /// The bytes a URI allows in a path and query (unreserved, sub-delims, `:@/?%`);
    /// `#` is left out since a request target carries no fragment.
    private static func isTargetByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "!"), UInt8(ascii: "$"),
             UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"),
             UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="), UInt8(ascii: ":"), UInt8(ascii: "@"), UInt8(ascii: "/"),
             UInt8(ascii: "?"), UInt8(ascii: "%"):
            return true
        default:
            return false
        }
    }

    /// A registered name or IPv4 address with an optional port (IPv6 literals go the slow way).
    private static func isAuthorityByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: ":"):
            return true
        default:
            return false
        }
    }

    static func extensionOf(path: String) -> String {
        // Searched as bytes: `/` and `.` are ASCII, so their UTF-8 positions are valid string
        // indices, and a byte search skips the grapheme breaking of a `Character` one.
        var path = path
        return path.withUTF8 { bytes in
            // From the end: the last `.` after the last `/`.
            var offset = bytes.count - 1
            var hasUppercase = false
            while offset >= 0 {
                let byte = bytes[offset]
                if byte == UInt8(ascii: "/") { return "" }
                if byte == UInt8(ascii: ".") { break }
                // Non-ASCII goes through `lowercased()` too, which knows its cases.
                if byte >= UInt8(ascii: "A"), byte <= UInt8(ascii: "Z") || byte >= 0x80 { hasUppercase = true }
                offset -= 1
            }
            guard offset >= 0, offset + 1 < bytes.count else { return "" }
            let name = String(decoding: UnsafeBufferPointer(rebasing: bytes[(offset + 1)...]), as: UTF8.self)
            return hasUppercase ? name.lowercased() : name
        }
    }

    public static func == (lhs: StubRequest, rhs: StubRequest) -> Bool {
        lhs.method == rhs.method && lhs.urlString == rhs.urlString && lhs.headers == rhs.headers && lhs.body == rhs.body
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(method)
        hasher.combine(urlString)
        hasher.combine(headers)
        hasher.combine(body)
    }

    /// `METHOD URL`, as logs and near-miss reports print it.
    public var description: String {
        "\(method) \(urlString)"
    }
}

extension String {
    /// The strings one after the other, their bytes copied once into a string of the right
    /// size (appending grew it, and checked each part, at every step).
    fileprivate init(joiningUTF8Of parts: [String]) {
        var total = 0
        for part in parts { total += part.utf8.count }
        self.init(unsafeUninitializedCapacity: total) { buffer in
            var written = 0
            for var part in parts {
                written += part.withUTF8 { bytes in
                    UnsafeMutableBufferPointer(rebasing: buffer[written...]).initialize(fromContentsOf: bytes)
                }
            }
            return written
        }
    }

    /// `uppercased()`, without making a new string when there is nothing to change (a
    /// request's method nearly always).
    fileprivate var uppercasedASCIIIfNeeded: String {
        containsUTF8 { $0 >= UInt8(ascii: "a") && ($0 <= UInt8(ascii: "z") || $0 >= 0x80) } ? uppercased() : self
    }

    /// `lowercased()`, without making a new string when there is nothing to change.
    fileprivate var lowercasedASCIIIfNeeded: String {
        containsUTF8 { $0 >= UInt8(ascii: "A") && ($0 <= UInt8(ascii: "Z") || $0 >= 0x80) } ? lowercased() : self
    }

    /// Whether a byte of the string's UTF-8 passes `test`, read as one buffer: iterating `utf8`
    /// takes a small string (a method, a scheme) apart again for every byte.
    private func containsUTF8(where test: (UInt8) -> Bool) -> Bool {
        var string = self
        return string.withUTF8 { $0.contains(where: test) }
    }
}
