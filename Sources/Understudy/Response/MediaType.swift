import Foundation

/// Content types from bytes and file names, as responses are labelled.
public enum MediaType {
    /// The image type the bytes' signature shows (PNG, WebP, JPEG, GIF), or `nil`.
    public static func sniff(_ data: Data) -> String? {
        let bytes = [UInt8](data.prefix(12))
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WEBP".utf8) {
            return "image/webp"
        }
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if bytes.starts(with: Array("GIF87a".utf8)) || bytes.starts(with: Array("GIF89a".utf8)) { return "image/gif" }
        return nil
    }

    /// The type for a file extension, or `application/octet-stream`.
    public static func forExtension(_ ext: String) -> String {
        switch ext.lowercased() {
        case "png": return "image/png"
        case "webp": return "image/webp"
        case "jpg", "jpeg": return "image/jpeg"
        case "gif": return "image/gif"
        case "svg": return "image/svg+xml"
        case "avif": return "image/avif"
        case "json", "har": return "application/json"
        case "txt": return "text/plain; charset=utf-8"
        case "html", "htm": return "text/html; charset=utf-8"
        case "css": return "text/css; charset=utf-8"
        case "js": return "text/javascript; charset=utf-8"
        case "xml": return "application/xml"
        case "yaml", "yml": return "application/yaml"
        default: return "application/octet-stream"
        }
    }

    /// The signature's type when the bytes are an image, else the extension's.
    public static func forFile(_ url: URL, data: Data) -> String {
        sniff(data) ?? forExtension(url.pathExtension)
    }
}
