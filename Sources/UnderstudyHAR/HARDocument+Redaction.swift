import Foundation
import Understudy

extension HARDocument {
    /// This document with `redaction` applied to every entry: what a HAR exported from a test
    /// needs before it is committed.
    ///
    /// ```swift
    /// let safe = try HARDocument(contentsOf: exported).redacted(HARRedaction(extraHeaders: ["X-Api-Key"]))
    /// ```
    /// - Parameter redaction: the header values to hide.
    public func redacted(_ redaction: HARRedaction) -> HARDocument {
        var document = self
        document.log.entries = log.entries.map(redaction.apply(to:))
        return document
    }
}

extension Journal {
    /// The journal as a HAR document with the recording's redaction applied: by default the
    /// values of `Authorization`, `Proxy-Authorization`, `Cookie` and `Set-Cookie` (headers
    /// and cookie arrays) become `REDACTED`, as `understudy record` writes them.
    ///
    /// ```swift
    /// try stubs.journal.har(redacting: HARRedaction(extraHeaders: ["X-Api-Key"])).write(to: harURL)
    /// ```
    /// - Parameter redaction: the header values to hide.
    public func har(redacting redaction: HARRedaction = HARRedaction()) -> HARDocument {
        har().redacted(redaction)
    }
}
