#if UNDERSTUDY_SYSTEM_CODECS
internal import CUnderstudyHEIF
import Foundation

/// libheif: HEIC, HEVC images in the ISOBMFF container (libde265 decodes, x265 encodes on
/// Debian). Decoding gives the primary image (with its alpha image where there is one);
/// encoding writes one primary image at a lossy quality, with alpha unless every pixel is opaque.
enum HEIFCodec {
    /// The quality stub files use when none is given.
    static let defaultQuality = 60

    /// libheif's one-time initialisation, run (thread-safely, by Swift's lazy static) before
    /// the first context is made.
    private static let initialized: Void = usd_heif_init()

    /// A parsed HEIF file and its primary image's handle; nothing decoded yet.
    private final class Reader {
        private let context: OpaquePointer
        let handle: OpaquePointer
        // libheif reads from these bytes (without copying) until the context is freed.
        private let bytes: CBuffer
        private let data: Data

        init(_ data: Data, pixelLimit: Int) throws {
            _ = HEIFCodec.initialized
            try HEIFCodec.checkDerivedImages(data)
            self.data = data
            bytes = CBuffer(data)
            var context: OpaquePointer?
            var handle: OpaquePointer?
            let status = usd_heif_open(bytes.base, bytes.count, Int32(HEIFCodec.maximumSide(pixelLimit: pixelLimit)), &context, &handle)
            guard status.code == 0, let context, let handle else {
                throw HEIFCodec.error(status, data: data, stage: "heif_context_read_from_memory")
            }
            self.context = context
            self.handle = handle
        }

        deinit { usd_heif_close(context, handle) }

        var width: Int { Int(heif_image_handle_get_width(handle)) }
        var height: Int { Int(heif_image_handle_get_height(handle)) }

        func decode() throws -> RGBAImage {
            let count = width * height * 4
            var status = usd_heif_status()
            let pixels = [UInt8](unsafeUninitializedCapacity: count) { out, initialized in
                status = usd_heif_decode_rgba(handle, out.baseAddress, Int32(width), Int32(height))
                initialized = count
            }
            guard status.code == 0 else { throw HEIFCodec.error(status, data: data, stage: "heif_decode_image") }
            return RGBAImage(unchecked: width, height, pixels)
        }
    }

    /// The primary image as 8-bit RGBA. Every image size the file declares has been checked
    /// against `pixelLimit` already (``ImageCodecs``); the size libheif reports is checked again.
    static func decode(_ data: Data, pixelLimit: Int) throws -> RGBAImage {
        let reader = try Reader(data, pixelLimit: pixelLimit)
        try RGBAImage.checkSize(width: reader.width, height: reader.height, pixelLimit: pixelLimit)
        return try reader.decode()
    }

    /// libheif's own limit on the width and on the height of any image it allocates (it checks
    /// each side, not the area): at least 16,385 pixels, more when the pixel limit's square is
    /// wider, at most libheif's own 32,768. A backstop to the checks made before decoding: an
    /// image at the limit costs at most 1 GB of RGBA, where libheif's default allows 4 GB.
    static func maximumSide(pixelLimit: Int) -> Int {
        min(32_768, max(16_385, Int(Double(pixelLimit).squareRoot()) + 1))
    }

    /// The longest chain of derived images (grids, overlays, identity transforms) made from
    /// derived images that is decoded: a grid of grids, not a grid of grids of grids.
    static let maximumDerivationDepth = 2

    /// Refuses, before libheif sees it, a file in which decoding an image would lead back to
    /// it (a grid among its own tiles, or an alpha image made from the image it belongs to) or
    /// through a chain of more than ``maximumDerivationDepth`` derived images, or whose item
    /// references are malformed (read leniently, they make such cycles too). libheif 1.15
    /// follows those references recursively, each tile of a grid on a thread of its own, and does
    /// not look for cycles: such a file (`make fuzz` finds them) starts threads until memory runs
    /// out or, with decoding threads off, overflows the stack.
    static func checkDerivedImages(_ data: Data) throws {
        let inputs: [Int: [Int]], auxiliaries: [Int: [Int]]
        do {
            (inputs, auxiliaries) = try ISOBMFF(bytes: [UInt8](data)).decodingReferences()
        } catch {
            throw ImageError(.corrupt, "corrupt HEIC: \(error.problem) (at byte \(error.offset)); libheif would guess at it, so it is not decoded")
        }
        guard !inputs.isEmpty || !auxiliaries.isEmpty else { return }
        var depths: [Int: Int] = [:]
        /// The most derived images on a path of decoding from `item`; `path` led here.
        func depth(of item: Int, path: [Int]) throws -> Int {
            if let known = depths[item] { return known }
            if path.contains(item) {
                let cycle = (path.drop { $0 != item } + [item]).map(String.init).joined(separator: " -> ")
                throw ImageError(.corrupt, "corrupt HEIC: decoding item \(item) leads back to it (\(cycle), through derived-image and auxiliary-image references)")
            }
            var deepest = 0
            for next in Set(inputs[item, default: []] + auxiliaries[item, default: []]) {
                deepest = max(deepest, try depth(of: next, path: path + [item]))
            }
            let result = deepest + (inputs[item] == nil ? 0 : 1)
            guard result <= maximumDerivationDepth else {
                throw ImageError(.corrupt, "corrupt HEIC: decoding item \(item) goes through \(result) derived images (grids, overlays, transforms) made from one another; at most \(maximumDerivationDepth) are decoded (a grid of grids)")
            }
            depths[item] = result
            return result
        }
        for item in Set(inputs.keys).union(auxiliaries.keys).sorted() { _ = try depth(of: item, path: []) }
    }

    /// A HEIC of one image at `quality` (0..100, clamped).
    static func encode(_ image: RGBAImage, quality: Int) throws -> Data {
        _ = initialized
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        var stage: UnsafePointer<CChar>?
        let opaque = image.isOpaque
        let status = image.pixels.withUnsafeBufferPointer { pixels in
            usd_heif_encode(
                pixels.baseAddress, Int32(image.width), Int32(image.height), opaque ? 1 : 0,
                Int32(ImageFormat.clampedQuality(quality)), &output, &size, &stage
            )
        }
        guard status.code == 0, let output else {
            let what = stage.map { String(cString: $0) } ?? "encoding"
            throw ImageError(.encodingFailed, "HEIC encoding failed: libheif: \(what): \(describe(status))")
        }
        defer { free(output) }
        return Data(bytes: output, count: size)
    }

    private static func describe(_ status: usd_heif_status) -> String {
        var status = status
        let message = withUnsafeBytes(of: &status.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        return "\(message.isEmpty ? "error" : message) (code \(status.code), subcode \(status.subcode))"
    }

    private static func error(_ status: usd_heif_status, data: Data, stage: String) -> ImageError {
        // heif_error_Invalid_input with heif_suberror_End_of_data: the file stops early.
        if status.code == Int32(heif_error_Invalid_input.rawValue), status.subcode == Int32(heif_suberror_End_of_data.rawValue) {
            return ImageError(.truncated, "truncated HEIC: the data ends after \(data.count) bytes, before the image is complete (libheif: \(stage): \(describe(status)))")
        }
        if status.code == Int32(heif_error_Memory_allocation_error.rawValue), status.subcode == Int32(heif_suberror_Security_limit_exceeded.rawValue) {
            return ImageError(.tooLarge, "HEIC image is over libheif's security limit (libheif: \(stage): \(describe(status)))")
        }
        return ImageError(.corrupt, "corrupt HEIC: libheif: \(stage): \(describe(status))")
    }
}
#endif
