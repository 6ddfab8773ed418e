#if UNDERSTUDY_SYSTEM_CODECS
import Foundation

/// What the libpng and libjpeg shims report alike: a return code (ok, truncated, unsupported or
/// failed) and the library's own message in a fixed `char` array of their status struct.
enum ShimStatus {
    /// The NUL-terminated message in `message`, a C `char[N]` imported as a tuple.
    static func text<Message>(_ message: inout Message) -> String {
        withUnsafeBytes(of: &message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    /// Nothing when the decode went well; otherwise the error a user reads: truncated (with the
    /// size that arrived), unsupported, or corrupt in `library`'s words.
    static func check(
        format: String, library: String, ok: Bool, truncated: Bool, unsupported: Bool = false,
        message: @autoclosure () -> String, byteCount: Int
    ) throws {
        if ok { return }
        if truncated { throw ImageError.truncated(format, byteCount: byteCount) }
        if unsupported { throw ImageError(.unsupportedFormat, "unsupported \(format): \(message())") }
        throw ImageError(.corrupt, "corrupt \(format): \(library): \(message())")
    }
}
#endif
