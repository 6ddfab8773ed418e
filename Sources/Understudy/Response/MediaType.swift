import Foundation
import UnderstudyImages

/// Content types from bytes and file names, as responses are labelled.
package enum MediaType {
    /// The image type the bytes' signature shows (PNG, WebP, JPEG, GIF, AVIF, HEIC), or `nil`.
    package static func sniff(_ data: Data) -> String? {
        ImageKind.detect(data)?.mimeType
    }

    /// The type for a file extension, or `application/octet-stream`: an image format's from
    /// ``ImageKind`` (the one table of image types), the others' from here.
    package static func forExtension(_ ext: String) -> String {
        if let kind = ImageKind(fileExtension: ext) { return kind.mimeType }
        switch ext.lowercased() {
        case "svg": return "image/svg+xml"
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
    package static func forFile(_ url: URL, data: Data) -> String {
        sniff(data) ?? forExtension(url.pathExtension)
    }
}
