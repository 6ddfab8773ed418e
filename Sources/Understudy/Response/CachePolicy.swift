import Foundation

/// The validators and caching headers a response carries (`cache:` in stub files), which
/// decide how conditional requests are answered.
///
/// On by default for file, data (base64), image and generated bodies: a strong `ETag` that is a
/// digest of the bytes served, `Last-Modified` from the file's modification time (for bodies
/// not read from a file, when the stub was added). `If-None-Match` and then
/// `If-Modified-Since` are answered `304 Not Modified` with `ETag`, `Last-Modified`,
/// `Cache-Control` and `Vary` and no body, over both transports.
///
/// ```swift
/// .file(photo).cache(CachePolicy(etag: .weak, control: "max-age=60"))
/// .file(photo).cache(CachePolicy(etag: .fixed("\"v7\""), lastModified: .none))
/// .file(photo).cache(.none)      // no validators: every request gets the whole 200
/// ```
public struct CachePolicy: Sendable, Hashable {
    /// How the `ETag` is made.
    public enum EntityTag: Sendable, Hashable {
        /// A digest of the bytes served, quoted: `"3f2a…"`.
        case strong
        /// The same digest marked weak: `W/"3f2a…"`.
        case weak
        /// No `ETag`.
        case none
        /// This entity tag as written, quotes included: `"v7"` or `W/"v7"`.
        case fixed(String)
    }

    /// Where `Last-Modified` comes from.
    public enum LastModified: Sendable, Hashable {
        /// The file's modification time; for bodies not read from a file, when the stub was added.
        case file
        /// No `Last-Modified`.
        case none
        /// This date (sent to the whole second).
        case date(Date)
    }

    /// How the `ETag` is made.
    public var etag: EntityTag
    /// Where `Last-Modified` comes from.
    public var lastModified: LastModified
    /// The `Cache-Control` value sent on 200, 206 and 304, if any.
    public var control: String?

    /// Creates a policy.
    /// - Parameters:
    ///   - etag: how the `ETag` is made (a digest of the bytes served by default).
    ///   - lastModified: where `Last-Modified` comes from (the file by default).
    ///   - control: a `Cache-Control` value, such as `no-cache` or `max-age=60`.
    public init(etag: EntityTag = .strong, lastModified: LastModified = .file, control: String? = nil) {
        self.etag = etag
        self.lastModified = lastModified
        self.control = control
    }

    /// The default: a strong digest `ETag` and `Last-Modified` from the file.
    public static let standard = CachePolicy()

    /// No validators and no `Cache-Control`: conditional requests get the whole 200.
    public static let none = CachePolicy(etag: .none, lastModified: .none)

    /// Whether `text` is an entity tag as HTTP writes one: `"opaque"` or `W/"opaque"`, the
    /// opaque part without `"`, spaces or control characters.
    static func isValidEntityTag(_ text: String) -> Bool {
        var rest = Substring(text)
        if rest.hasPrefix("W/") { rest = rest.dropFirst(2) }
        guard rest.count >= 2, rest.first == "\"", rest.last == "\"" else { return false }
        return rest.dropFirst().dropLast().unicodeScalars.allSatisfy { $0 == "!" || ($0.value >= 0x23 && $0.value != 0x7F) }
    }
}
