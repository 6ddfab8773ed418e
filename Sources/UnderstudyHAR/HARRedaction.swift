import Foundation
import Understudy

/// Which header values a recording hides: their values become `REDACTED` in request and
/// response headers and in the HAR `cookies` arrays.
///
/// ```swift
/// let redaction = HARRedaction(extraHeaders: ["X-Api-Key"])          // secrets plus X-Api-Key
/// let keepAll = HARRedaction(keepsSecrets: true)                     // nothing hidden
/// ```
public struct HARRedaction: Sendable, Hashable {
    /// The headers hidden unless secrets are kept.
    public static let secretHeaders = ["Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie"]
    /// What a hidden value becomes.
    public static let placeholder = "REDACTED"

    /// The header names hidden, lowercased.
    public let headerNames: Set<String>

    /// Creates a redaction.
    /// - Parameters:
    ///   - extraHeaders: more header names to hide (`--redact-header`).
    ///   - keepsSecrets: keep ``secretHeaders`` as recorded (`--keep-secrets`).
    public init(extraHeaders: [String] = [], keepsSecrets: Bool = false) {
        headerNames = Set((keepsSecrets ? [] : Self.secretHeaders).map { $0.lowercased() } + extraHeaders.map { $0.lowercased() })
    }

    /// `entry` with the hidden values replaced.
    public func apply(to entry: HAREntry) -> HAREntry {
        guard !headerNames.isEmpty else { return entry }
        var entry = entry
        entry.request.headers = redact(entry.request.headers)
        entry.response.headers = redact(entry.response.headers)
        if headerNames.contains("cookie") {
            entry.request.cookies = entry.request.cookies.map { var cookie = $0; cookie.value = Self.placeholder; return cookie }
        }
        if headerNames.contains("set-cookie") {
            entry.response.cookies = entry.response.cookies.map { var cookie = $0; cookie.value = Self.placeholder; return cookie }
        }
        return entry
    }

    private func redact(_ headers: [HARNameValue]) -> [HARNameValue] {
        headers.map { header in
            guard headerNames.contains(header.name.lowercased()) else { return header }
            var hidden = header
            hidden.value = Self.placeholder
            return hidden
        }
    }
}
